// Where a crawl's pages spend their time, step by step, for the log line of its end (docs/crawl.md).

/**
 * A page's steps, in milliseconds summed over the crawl's pages here: waiting for
 * a place at its host (`gate`), the take (`take`), fetch and extraction (`load`),
 * delivery with its links (`deliver`), queueing the links (`publish`).
 */
export type PhaseTimes = Record<'gate' | 'take' | 'load' | 'deliver' | 'publish', number> & { pages: number };

export const noPhases = (): PhaseTimes => ({ gate: 0, take: 0, load: 0, deliver: 0, publish: 0, pages: 0 });

/** Runs `step`, adding its time to `phase`. */
export async function timed<T>(
  phases: PhaseTimes,
  phase: keyof Omit<PhaseTimes, 'pages'>,
  step: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  try {
    return await step();
  } finally {
    phases[phase] += performance.now() - started;
  }
}

/** Milliseconds per page of each step. */
export function perPage(phases: PhaseTimes) {
  const { pages, ...steps } = phases;
  return {
    pages,
    ...Object.fromEntries(Object.entries(steps).map(([k, ms]) => [k, Math.round((ms / Math.max(1, pages)) * 10) / 10])),
  };
}
