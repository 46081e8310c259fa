// When a workspace whose checks are skipped for credits is looked at again
// (docs/monitors.md, "Credits"). Pure.

/** The first look comes a minute after the refusal; each look that finds too little doubles the wait. */
export const FIRST_PROBE_MS = 60_000;
/** The longest wait between two looks: a grant the announcement missed is noticed within it. */
export const MAX_PROBE_MS = 3_600_000;

/**
 * When to look again after `probes` looks found too little: the doubled wait,
 * or the moment the plan's allowance renews if that is sooner.
 */
export function nextProbeAt(now: Date, probes: number, allowanceResetsAt?: Date): Date {
  const wait = Math.min(MAX_PROBE_MS, FIRST_PROBE_MS * 2 ** Math.min(probes, 16));
  const next = new Date(now.getTime() + wait);
  return allowanceResetsAt && allowanceResetsAt > now && allowanceResetsAt < next ? allowanceResetsAt : next;
}
