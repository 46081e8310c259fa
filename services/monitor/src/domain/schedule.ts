// A monitor's schedule (docs/monitors.md): an interval, or a cron expression
// in a time zone (croner), never firing more often than once a minute; when
// it fires next, with a stable per-monitor jitter. Pure.
import { Cron } from 'croner';

/** No monitor is checked more often than this. */
export const MIN_INTERVAL_MS = 60_000;
export const MAX_INTERVAL_MS = 31 * 86_400_000;
/** Jitter spreads monitors of one schedule over the first tenth of it, a minute at most. */
const MAX_JITTER_MS = 60_000;

export type Schedule = { kind: 'every'; ms: number } | { kind: 'cron'; expression: string; timezone: string };

/** "90s", "15m", "2h", "1d" as milliseconds; undefined for anything else. */
export function parseInterval(text: string): number | undefined {
  const m = /^(\d{1,6})\s*(s|m|h|d)$/.exec(text.trim());
  if (!m) return undefined;
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}

/** Why a schedule cannot be used, or undefined when it can. */
export function scheduleProblem(schedule: Schedule): string | undefined {
  if (schedule.kind === 'every') {
    if (schedule.ms < MIN_INTERVAL_MS) return 'every: once a minute at most';
    if (schedule.ms > MAX_INTERVAL_MS) return 'every: at least once in 31 days';
    return undefined;
  }
  let gap: number;
  try {
    // An unknown time zone fails only when a date is computed: both inside.
    gap = shortestGapMs(schedule);
  } catch (err) {
    return `cron: ${(err as Error).message.split('. ')[0]}`;
  }
  if (gap === Number.POSITIVE_INFINITY) return 'cron: it never fires';
  if (gap < MIN_INTERVAL_MS) return 'cron: once a minute at most';
  return undefined;
}

/**
 * The shortest time between two checks: the interval, or the closest two of
 * a cron expression's next six firings (infinite when it fires once or never).
 * Throws for an expression or time zone croner cannot use.
 */
export function shortestGapMs(schedule: Schedule): number {
  if (schedule.kind === 'every') return schedule.ms;
  const runs = new Cron(schedule.expression, { timezone: schedule.timezone || 'UTC', paused: true }).nextRuns(6);
  let gap = Number.POSITIVE_INFINITY;
  for (let i = 1; i < runs.length; i++)
    gap = Math.min(gap, (runs[i] as Date).getTime() - (runs[i - 1] as Date).getTime());
  return gap;
}

/** A stable offset for the monitor, within the first tenth of its interval (a minute at most). */
export function jitterMs(monitorId: string, intervalMs: number): number {
  let h = 2166136261;
  for (const c of monitorId) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  const span = Math.min(MAX_JITTER_MS, Math.floor(intervalMs / 10));
  return span > 0 ? (h >>> 0) % span : 0;
}

/** The first check of a monitor made at `createdAt`: the baseline, taken soon, spread like every later check. */
export function firstCheckAt(monitorId: string, schedule: Schedule, createdAt: Date): Date {
  const interval = schedule.kind === 'every' ? schedule.ms : MIN_INTERVAL_MS;
  return new Date(createdAt.getTime() + jitterMs(monitorId, interval));
}

/**
 * When a monitor of a workspace whose checks resume (credits came back) is
 * due: when its schedule has it, the slot after its last check (or its first
 * check, when it had none), whatever it was put off to. A slot that came while
 * checks were put off is in the past: due at once, once.
 */
export function resumedCheckAt(monitor: {
  id: string;
  schedule: Schedule;
  anchorAt: Date;
  createdAt: Date;
  lastCheckAt: Date | null;
}): Date {
  return monitor.lastCheckAt
    ? nextCheckAt(monitor.id, monitor.schedule, monitor.lastCheckAt, monitor.anchorAt)
    : firstCheckAt(monitor.id, monitor.schedule, monitor.createdAt);
}

/**
 * When the monitor is due next, after `now`: the next slot of its schedule
 * after now (slots missed while nothing ran are not made up), plus its jitter.
 */
export function nextCheckAt(monitorId: string, schedule: Schedule, now: Date, anchor: Date): Date {
  if (schedule.kind === 'every') {
    const elapsed = now.getTime() - anchor.getTime();
    const slots = Math.max(1, Math.floor(elapsed / schedule.ms) + 1);
    return new Date(anchor.getTime() + slots * schedule.ms + jitterMs(monitorId, schedule.ms));
  }
  const cron = new Cron(schedule.expression, { timezone: schedule.timezone || 'UTC', paused: true });
  const [first, second] = cron.nextRuns(2, now);
  const interval = first && second ? second.getTime() - first.getTime() : MIN_INTERVAL_MS;
  return new Date((first ?? new Date(now.getTime() + MAX_INTERVAL_MS)).getTime() + jitterMs(monitorId, interval));
}
