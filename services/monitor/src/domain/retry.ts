// When a notification is tried again (docs/monitors.md, "Delivery"): on a
// 5xx, a 429 or a network failure, with exponential backoff and full jitter
// (1 s doubling, ten minutes at most), never sooner than a Retry-After asks;
// any other answer is final. Pure.

export const MAX_ATTEMPTS = 8;
const BASE_MS = 1_000;
const CAP_MS = 600_000;

/** Whether an answer (an HTTP status, or 0 for no answer) is worth another try. */
export const retryable = (status: number) => status === 0 || status === 429 || status >= 500;

/** A Retry-After header as milliseconds from `now`: delta-seconds or an HTTP date. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The wait before attempt `attempts + 1`, after `attempts` failed ones. */
export function backoffMs(attempts: number, retryAfter: number | undefined, random = Math.random): number {
  const ceiling = Math.min(CAP_MS, BASE_MS * 2 ** Math.max(0, attempts - 1));
  const jittered = Math.floor(random() * ceiling);
  return Math.min(CAP_MS, Math.max(jittered, retryAfter ?? 0));
}
