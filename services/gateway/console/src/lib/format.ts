// How numbers and times read in the console: the person's locale, exact credits.

/** Credits to three decimals at most, as the ledger counts them. */
export function formatCredits(credits: number): string {
  return credits.toLocaleString(undefined, { maximumFractionDigits: 3 });
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toLocaleString(undefined, { maximumFractionDigits: unit === 0 ? 0 : 1 })} ${units[unit]}`;
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export function formatDateTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** To the second, with the time zone: a tooltip's precision. */
export function formatFullDateTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'long' });
}

/** The time of day to the second: events of one run, whose date the page already says. */
export function formatClock(iso: string): string {
  return new Date(iso).toLocaleTimeString(undefined, { timeStyle: 'medium' });
}

/**
 * How long ago (or how soon) `iso` is from `now`, as the locale says it ("3 minutes ago", "in 1 hour",
 * "yesterday"); a week or more away, the date itself, where "5 weeks ago" would say less.
 */
export function formatRelative(iso: string, now: number): string {
  const seconds = (Date.parse(iso) - now) / 1000;
  const away = Math.abs(seconds);
  const say = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  if (away < 45) return say.format(0, 'second');
  if (away < 45 * 60) return say.format(Math.round(seconds / 60), 'minute');
  if (away < 22 * 3600) return say.format(Math.round(seconds / 3600), 'hour');
  if (away < 7 * 86_400) return say.format(Math.round(seconds / 86_400), 'day');
  return new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });
}

/** The units an interval is said in, largest first. */
const INTERVAL_UNITS: [string, number][] = [
  ['day', 86_400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** A monitor's interval as the API gives it (`60m`, `1440m`) in words, in its largest whole unit: "every hour", "every day". */
export function formatInterval(every: string): string {
  const match = /^(\d+)([smhd])$/.exec(every);
  if (!match) return `every ${every}`;
  const seconds = Number(match[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as 's' | 'm' | 'h' | 'd'];
  const [unit, size] = INTERVAL_UNITS.find(([, unitSeconds]) => seconds % unitSeconds === 0) ?? ['second', 1];
  const count = seconds / size;
  return count === 1 ? `every ${unit}` : `every ${count} ${unit}s`;
}

/** A UTC day (YYYY-MM-DD) as the locale writes a short date. */
export function formatDay(day: string, style: 'short' | 'long' = 'short'): string {
  const date = new Date(`${day}T00:00:00Z`);
  return style === 'short'
    ? date.toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' })
    : date.toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
}

/** A meter's name as people read it: `context_seconds` → `context seconds`. */
export const meterLabel = (meter: string): string => meter.replace(/_/g, ' ');
