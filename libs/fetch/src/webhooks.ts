// Webhooks we send (docs/monitors.md, "Delivery"; docs/crawl.md, "Webhooks"): signed per Standard
// Webhooks under a message id every attempt repeats, posted through the egress guard, and tried
// again on a 5xx, a 429 (honouring Retry-After) or a network failure with exponential backoff
// and full jitter (1 s doubling, ten minutes at most); any other answer is final.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { request } from 'undici';
import type { FetchAgent } from './agent.js';

export const MAX_ATTEMPTS = 8;
const BASE_MS = 1_000;
const CAP_MS = 600_000;
const SEND_TIMEOUT_MS = 15_000;

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

/** A new signing secret, `whsec_…`, as Standard Webhooks' libraries read it. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The headers that sign `body` with `secret` under `messageId`: a delivery repeats its id on
 * every attempt, so a receiver that got an attempt whose answer was lost drops the next.
 */
export function signatureHeaders(secret: string, messageId: string, body: string, now = new Date()) {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, now, body),
  };
}

/** One attempt's answer: its status (0 without one), its Retry-After, or why it had none. */
export interface Attempt {
  status: number;
  retryAfter?: string;
  error?: string;
}

/** One POST of a webhook through the egress guard; never throws. */
export async function postWebhook(
  agent: FetchAgent,
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<Attempt> {
  try {
    const answer = await request(url, {
      method: 'POST',
      headers,
      body,
      dispatcher: agent.dispatcher,
      headersTimeout: SEND_TIMEOUT_MS,
      bodyTimeout: SEND_TIMEOUT_MS,
    });
    await answer.body.dump();
    const after = answer.headers['retry-after'];
    return { status: answer.statusCode, ...(typeof after === 'string' && { retryAfter: after }) };
  } catch (err) {
    return { status: 0, error: (err as Error).message.slice(0, 200) };
  }
}

/** Where a delivery stands after its `attempts`-th attempt, and when it is tried next. */
export function afterAttempt(outcome: Attempt, attempts: number, now = Date.now()) {
  const ok = outcome.status >= 200 && outcome.status < 300;
  const again = !ok && retryable(outcome.status) && attempts < MAX_ATTEMPTS;
  const wait = again ? backoffMs(attempts, retryAfterMs(outcome.retryAfter, now)) : 0;
  return {
    status: ok ? ('delivered' as const) : again ? ('pending' as const) : ('failed' as const),
    nextAttempt: new Date(now + wait),
    entry: {
      at: new Date(now).toISOString(),
      status: outcome.status,
      ...(outcome.error !== undefined && { error: outcome.error }),
    },
  };
}
