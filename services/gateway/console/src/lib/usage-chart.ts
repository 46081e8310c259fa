// The usage chart's numbers, apart from its drawing: one bar per UTC day of the range, split by meter.
import { CHART_SERIES } from './meters.js';

export interface DayUsage {
  day: string;
  credits: number;
  meters: Record<string, number>;
  /** What each meter cost that day (GET /v1/usage). */
  creditsByMeter: Record<string, number>;
}

export interface Bar {
  day: string;
  total: number;
  /** Credits per series, in CHART_SERIES order; they add up to `total`. */
  parts: { series: string; credits: number }[];
}

const DAY_MS = 86_400_000;

/** Every UTC day from `from` up to `to` (exclusive), so days without usage show as empty bars. */
export function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  const start = Date.parse(`${from.slice(0, 10)}T00:00:00Z`);
  for (let t = start; t < Date.parse(to); t += DAY_MS) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/**
 * A day's credits split over its meters by what each cost. The day's total is the ledger's charged
 * figure, so a day with a shortfall (priced more than it could collect) is split in proportion.
 */
export function splitDay(usage: DayUsage | undefined): Bar['parts'] {
  if (!usage || usage.credits <= 0) return [];
  const known = new Set<string>(CHART_SERIES);
  const worth = new Map<string, number>();
  for (const [meter, credits] of Object.entries(usage.creditsByMeter)) {
    const series = known.has(meter) ? meter : 'other';
    if (credits > 0) worth.set(series, (worth.get(series) ?? 0) + credits);
  }
  const sum = [...worth.values()].reduce((a, b) => a + b, 0);
  if (sum === 0) return [{ series: 'other', credits: usage.credits }];
  return CHART_SERIES.filter((s) => worth.has(s)).map((series) => ({
    series,
    credits: (usage.credits * (worth.get(series) ?? 0)) / sum,
  }));
}

export function barsOf(from: string, to: string, byDay: DayUsage[]): Bar[] {
  const byKey = new Map(byDay.map((d) => [d.day, d]));
  return daysOf(from, to).map((day) => {
    const usage = byKey.get(day);
    return { day, total: usage?.credits ?? 0, parts: splitDay(usage) };
  });
}

/** A round top for the axis: 1, 2 or 5 × a power of ten, at least `max`. */
export function niceMax(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}
