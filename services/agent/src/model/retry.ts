// One model call over HTTP, tried again while the provider is only busy:
// 429, 500, 502, 503, 504, 529 and lost connections or timed-out attempts,
// with exponential backoff and full jitter, never sooner than the provider's
// Retry-After. Every attempt has its own timeout, joined to the caller's
// signal (which ends the call, waits included). Failures become ModelErrors
// whose messages carry the provider's own words, short and without keys.
import { setTimeout as delay } from 'node:timers/promises';
import { ModelError } from './types.js';

export interface RetryOptions {
  /** Tries after the first. Default 2. */
  retries?: number;
  /** Each attempt's limit, the answer's body included, ms. Default 120 s (a CPU-bound local model is slow). */
  timeoutMs?: number;
  /** The first backoff's ceiling, doubled each time, ms. Default 500. */
  backoffMs?: number;
  /** The longest wait between attempts, ms; a Retry-After beyond it fails the call at once. Default 30 s. */
  maxWaitMs?: number;
}

export interface HttpCall extends RetryOptions {
  /** The client's name, first in every message. */
  name: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Default: the global fetch. */
  fetch?: typeof fetch | undefined;
  signal?: AbortSignal | undefined;
  /** Strings never to repeat in a message (the API key). */
  secrets: string[];
}

const RETRIED = new Set([429, 500, 502, 503, 504, 529]);
/** Enough for any step's envelope; more is a broken or hostile endpoint. */
export const MAX_BODY_BYTES = 1024 * 1024;
const MAX_ERROR_BODY_BYTES = 16 * 1024;
const MAX_MESSAGE_CHARS = 300;

/** POSTs `call.body` until an attempt answers 2xx and `read` accepts it, or the failure is final. */
export async function postWithRetries<T>(call: HttpCall, read: (res: Response) => Promise<T>): Promise<T> {
  const retries = call.retries ?? 2;
  for (let attempt = 0; ; attempt++) {
    const outcome = await tryOnce(call, read);
    if (outcome.ok) return outcome.value;
    const { error, retryAfter } = outcome;
    if (!outcome.retry || attempt >= retries)
      throw retryAfter === undefined ? error : new ModelError(error.message, error.kind, error.status, retryAfter);
    const maxWait = call.maxWaitMs ?? 30_000;
    if (retryAfter !== undefined && retryAfter > maxWait) {
      throw new ModelError(
        `${error.message} (asked to wait ${Math.ceil(retryAfter / 1000)} s)`,
        error.kind,
        error.status,
        retryAfter,
      );
    }
    try {
      await delay(backoffMs(attempt, retryAfter, call.backoffMs ?? 500, maxWait), undefined, { signal: call.signal });
    } catch {
      throw aborted(call.name);
    }
  }
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: ModelError; retry: boolean; retryAfter?: number };

async function tryOnce<T>(call: HttpCall, read: (res: Response) => Promise<T>): Promise<Outcome<T>> {
  if (call.signal?.aborted) return { ok: false, error: aborted(call.name), retry: false };
  const timeoutMs = call.timeoutMs ?? 120_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  // The caller's signal joins the timeout, never replaces it.
  const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
  try {
    const res = await (call.fetch ?? fetch)(call.url, {
      method: 'POST',
      headers: call.headers,
      body: call.body,
      signal,
    });
    if (!res.ok) {
      const error = await errorOf(res, call);
      return { ok: false, error, retry: RETRIED.has(res.status), retryAfter: retryAfterMs(res.headers) };
    }
    return { ok: true, value: await read(res) };
  } catch (e) {
    if (call.signal?.aborted) return { ok: false, error: aborted(call.name), retry: false };
    if (e instanceof ModelError) return { ok: false, error: e, retry: e.retryable };
    const why = timeout.aborted ? `no answer within ${timeoutMs} ms` : `connection failed (${causeOf(e)})`;
    return { ok: false, error: new ModelError(`${call.name}: ${why}`, 'unavailable'), retry: true };
  }
}

/** The wait before attempt `attempt + 2`: full jitter under a doubling ceiling, at least the Retry-After. */
export function backoffMs(attempt: number, retryAfter: number | undefined, baseMs: number, maxMs: number): number {
  const jittered = Math.floor(Math.random() * Math.min(maxMs, baseMs * 2 ** attempt));
  return Math.min(maxMs, Math.max(jittered, retryAfter ?? 0));
}

/** How long the provider asks to wait, ms: `retry-after-ms` (OpenAI), `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The ModelError a non-2xx answer means, with the provider's `{error:{type,message}}` in its message. */
async function errorOf(res: Response, call: HttpCall): Promise<ModelError> {
  // A body cut short still leaves the status to judge by.
  const { text } = await readText(res, MAX_ERROR_BODY_BYTES).catch(() => ({ text: '' }));
  let detail = text;
  try {
    const { error } = JSON.parse(text) as { error?: { type?: unknown; message?: unknown } };
    if (error && typeof error.message === 'string') {
      detail = typeof error.type === 'string' ? `${error.type}: ${error.message}` : error.message;
    }
  } catch {
    // Not JSON (a proxy's HTML page): the text itself, shortened.
  }
  const message = `${call.name}: HTTP ${res.status}${detail ? ` ${clip(redact(detail, call.secrets))}` : ''}`;
  return new ModelError(message, kindOf(res.status), res.status);
}

function kindOf(status: number): ModelError['kind'] {
  if (status === 401 || status === 403) return 'auth';
  // 529: Anthropic's "overloaded", a capacity answer like 429.
  if (status === 429 || status === 529) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  return 'bad_request';
}

/** The body as text, at most `limit` bytes; `over` when there was more (the rest is not read). */
export async function readText(res: Response, limit: number): Promise<{ text: string; over: boolean }> {
  if (!res.body) return { text: '', over: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      chunks.push(value.subarray(0, value.byteLength - (size - limit)));
      return { text: Buffer.concat(chunks).toString('utf8'), over: true };
    }
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), over: false };
}

/** A 2xx body parsed as JSON; a `bad_output` ModelError when it is too big or not JSON. */
export async function readJson(res: Response, name: string): Promise<unknown> {
  const { text, over } = await readText(res, MAX_BODY_BYTES);
  if (over) throw new ModelError(`${name}: answer over ${MAX_BODY_BYTES} bytes`, 'bad_output');
  try {
    return JSON.parse(text);
  } catch {
    throw new ModelError(
      `${name}: answer is not JSON (${res.headers.get('content-type') ?? 'no content-type'})`,
      'bad_output',
    );
  }
}

/** Removes the secrets, and anything shaped like a key or a bearer token, from a provider's words. */
export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('[redacted]');
  return out.replace(/\bBearer\s+\S+/gi, 'Bearer [redacted]').replace(/\bsk-[\w*.-]{6,}/g, '[redacted]');
}

const clip = (text: string) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_MESSAGE_CHARS ? `${line.slice(0, MAX_MESSAGE_CHARS)}…` : line;
};

const aborted = (name: string) => new ModelError(`${name}: aborted`, 'aborted');

function causeOf(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  return e instanceof Error ? e.message : String(e);
}
