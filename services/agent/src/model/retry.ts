// One model call, tried again while the provider is only busy: 429, 500, 502,
// 503, 504, 529 and lost connections or timed-out attempts, with exponential
// backoff and full jitter, never sooner than the provider's Retry-After. The
// providers' SDKs (openai, @anthropic-ai/sdk) speak the wire; their own
// retries are off, because they wait past any Retry-After over a minute with
// their own backoff instead of failing the call, which a run needs to pause on
// (docs/decisions/0023). Every attempt has its own timeout, joined to the
// caller's signal (which ends the call, waits included). Failures become
// ModelErrors whose messages carry the provider's own words, short and
// without keys.
import { setTimeout as delay } from 'node:timers/promises';
import { APIError as AnthropicApiError, APIConnectionError as AnthropicConnectionError } from '@anthropic-ai/sdk';
import { APIConnectionError, APIError } from 'openai';
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

export interface Attempts extends RetryOptions {
  /** The client's name, first in every message. */
  name: string;
  signal?: AbortSignal | undefined;
  /** Strings never to repeat in a message (the API key). */
  secrets: string[];
}

const RETRIED = new Set([429, 500, 502, 503, 504, 529]);
/** Enough for any step's envelope; more is a broken or hostile endpoint. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** A stream repeats its envelope around every token: a 64 KiB step streams in a few MiB. */
const MAX_STREAM_BYTES = 16 * MAX_BODY_BYTES;
const MAX_MESSAGE_CHARS = 300;

/** Runs `attempt` (an SDK call under the signal it is given) until it answers or the failure is final. */
export async function withRetries<T>(call: Attempts, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const retries = call.retries ?? 2;
  for (let tried = 0; ; tried++) {
    const outcome = await tryOnce(call, attempt);
    if (outcome.ok) return outcome.value;
    const { error, retryAfter } = outcome;
    if (!outcome.retry || tried >= retries)
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
      await delay(backoffMs(tried, retryAfter, call.backoffMs ?? 500, maxWait), undefined, { signal: call.signal });
    } catch {
      throw aborted(call.name);
    }
  }
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: ModelError; retry: boolean; retryAfter?: number };

async function tryOnce<T>(call: Attempts, attempt: (signal: AbortSignal) => Promise<T>): Promise<Outcome<T>> {
  if (call.signal?.aborted) return { ok: false, error: aborted(call.name), retry: false };
  const timeoutMs = call.timeoutMs ?? 120_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  // The caller's signal joins the timeout, never replaces it.
  const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
  try {
    return { ok: true, value: await attempt(signal) };
  } catch (e) {
    if (call.signal?.aborted) return { ok: false, error: aborted(call.name), retry: false };
    if (timeout.aborted) {
      return {
        ok: false,
        error: new ModelError(`${call.name}: no answer within ${timeoutMs} ms`, 'unavailable'),
        retry: true,
      };
    }
    return failure(e, call);
  }
}

/** What an SDK's error means: the provider's status and words, a lost connection, or output that is not JSON. */
function failure(e: unknown, call: Attempts): Outcome<never> {
  const bounded = modelErrorIn(e);
  if (bounded) return { ok: false, error: bounded, retry: bounded.retryable };
  if (e instanceof APIConnectionError || e instanceof AnthropicConnectionError) {
    const error = new ModelError(`${call.name}: connection failed (${causeOf(e)})`, 'unavailable');
    return { ok: false, error, retry: true };
  }
  if (e instanceof APIError || e instanceof AnthropicApiError) {
    const detail = clip(redact(providerWords(e), call.secrets));
    if (e.status === undefined) {
      // An error sent inside a stream (vLLM's, OpenAI's): a 4xx code is the request's fault, anything else the server's.
      const code = Number((e.error as { code?: unknown } | undefined)?.code);
      const kind = code >= 400 && code < 500 ? 'bad_request' : 'unavailable';
      return { ok: false, error: new ModelError(`${call.name}: error in stream: ${detail}`, kind), retry: false };
    }
    const error = new ModelError(
      `${call.name}: HTTP ${e.status}${detail ? ` ${detail}` : ''}`,
      kindOf(e.status),
      e.status,
    );
    const retryAfter = e.headers ? retryAfterMs(e.headers) : undefined;
    return { ok: false, error, retry: RETRIED.has(e.status), ...(retryAfter !== undefined && { retryAfter }) };
  }
  if (e instanceof SyntaxError) {
    return { ok: false, error: new ModelError(`${call.name}: answer is not JSON`, 'bad_output'), retry: false };
  }
  const error = new ModelError(`${call.name}: connection failed (${causeOf(e)})`, 'unavailable');
  return { ok: false, error, retry: true };
}

/**
 * The provider's `{error:{type,message}}` as `type: message`: OpenAI's SDK holds the inner object,
 * Anthropic's the whole body; a body that is not JSON (a proxy's HTML page) is the text itself.
 */
function providerWords(e: APIError | AnthropicApiError): string {
  const body = e.error as { type?: unknown; message?: unknown; error?: unknown } | undefined;
  const inner = (typeof body?.error === 'object' && body.error ? body.error : body) as typeof body;
  if (inner && typeof inner.message === 'string')
    return typeof inner.type === 'string' ? `${inner.type}: ${inner.message}` : inner.message;
  return e.message.replace(/^\d{3} /, '').replace(/^status code \(no body\)$/, '');
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

function kindOf(status: number): ModelError['kind'] {
  if (status === 401 || status === 403) return 'auth';
  // 529: Anthropic's "overloaded", a capacity answer like 429.
  if (status === 429 || status === 529) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  return 'bad_request';
}

/**
 * `fetch` for an SDK whose answers are read no further than a step needs: a body over the bound
 * (1 MiB, a stream 16 MiB) ends with a `bad_output` ModelError instead of filling memory.
 */
export function boundedFetch(name: string, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const res = await base(input, init);
    if (!res.body) return res;
    const stream = res.headers.get('content-type')?.startsWith('text/event-stream');
    const limit = stream ? MAX_STREAM_BYTES : MAX_BODY_BYTES;
    let size = 0;
    const body = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          size += chunk.byteLength;
          if (size > limit) controller.error(new ModelError(`${name}: answer over ${limit} bytes`, 'bad_output'));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** The ModelError the bounded body ended with, however the SDK wrapped it. */
function modelErrorIn(e: unknown): ModelError | undefined {
  for (let at = e, depth = 0; at && depth < 4; at = (at as { cause?: unknown }).cause, depth++)
    if (at instanceof ModelError) return at;
  return undefined;
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

/** The system's word for a lost connection (ECONNREFUSED), found under the SDK's and fetch's wrappers. */
function causeOf(e: unknown): string {
  for (let at = e, depth = 0; at && depth < 4; at = (at as { cause?: unknown }).cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  }
  return e instanceof Error ? e.message : String(e);
}
