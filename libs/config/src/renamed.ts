// Settings that were renamed. Durations were once numbers named after their
// unit (_MS, _SECONDS, _DAYS); they are read by duration() now, so their names
// carry no unit. An old name still set would be ignored without a word and
// the service would run on the default: it is refused instead, naming the new
// name with the value written as a duration.

/** Old name → new name; the old one's unit is its suffix. */
export const RENAMED_SETTINGS: Readonly<Record<string, string>> = {
  AGENT_APPROVAL_TIMEOUT_MS: 'AGENT_APPROVAL_TIMEOUT',
  AGENT_LEASE_MS: 'AGENT_LEASE',
  AGENT_POLL_MS: 'AGENT_POLL',
  CRAWL_ACK_WAIT_MS: 'CRAWL_ACK_WAIT',
  CRAWL_IDLE_MS: 'CRAWL_IDLE',
  CRAWL_RETENTION_MS: 'CRAWL_RETENTION',
  CRAWL_STALL_MS: 'CRAWL_STALL',
  CRAWL_SWEEP_MS: 'CRAWL_SWEEP',
  CREDIT_VIEW_TTL_MS: 'CREDIT_VIEW_TTL',
  MONITOR_CHECK_LEASE_MS: 'MONITOR_CHECK_LEASE',
  MONITOR_POLL_MS: 'MONITOR_POLL',
  PAGE_CACHE_SWEEP_MS: 'PAGE_CACHE_SWEEP',
  PROFILE_LEASE_TTL_SECONDS: 'PROFILE_LEASE_TTL',
  RECORDING_RETENTION_DAYS: 'RECORDING_RETENTION',
  RECORDING_SWEEP_MS: 'RECORDING_SWEEP',
  REPLAY_LINK_TTL_SECONDS: 'REPLAY_LINK_TTL',
  SCREENCAST_INTERVAL_MS: 'SCREENCAST_INTERVAL',
  SESSION_DRAIN_SECONDS: 'SESSION_DRAIN',
};

const MS_PER_SUFFIX: ReadonlyArray<readonly [string, number]> = [
  ['_MS', 1],
  ['_SECONDS', 1_000],
  ['_DAYS', 86_400_000],
];

const MS_PER_UNIT: ReadonlyArray<readonly [string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
];

/**
 * Why `name` set to `value` is refused, with the line to write instead
 * (`CRAWL_ACK_WAIT_MS=2000` → `CRAWL_ACK_WAIT=2s`); undefined when `name` was not renamed.
 */
export function renamedReason(name: string, value: string): string | undefined {
  const renamed = RENAMED_SETTINGS[name];
  if (renamed === undefined) return undefined;
  const perUnit = MS_PER_SUFFIX.find(([suffix]) => name.endsWith(suffix))?.[1] ?? 1;
  const old = value.trim();
  const example = /^\d+$/.test(old) ? written(Number(old) * perUnit) : '30s';
  return `renamed ${renamed}, a duration (500ms, 30s, 5m, 7d): write ${renamed}=${example}`;
}

/** Milliseconds in the largest unit that keeps them exact: 90000 → 90s, 604800000 → 7d. */
function written(ms: number): string {
  if (ms === 0) return '0';
  const unit = MS_PER_UNIT.find(([, size]) => ms % size === 0);
  return unit ? `${ms / unit[1]}${unit[0]}` : `${ms}ms`;
}
