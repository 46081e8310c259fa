// The hand-kept core every generated method goes through: one HTTP exchange with retries,
// a timeout per attempt, errors by status, and the answer as JSON, a stream, a page or a
// redirect. Native fetch only (docs/clients.md).
import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError, WebAccessError } from './errors.js';
import type { OperationSpec } from './spec.js';
import { Stream } from './streams.js';

export { Stream };

/** Options of one call; each overrides the client's for this call only. */
export interface RequestOptions {
  /** Milliseconds one attempt may take (to the last byte of a JSON answer, to the headers of a stream). */
  timeoutMs?: number;
  /** Retries after the first attempt, for the failures that may be retried. */
  maxRetries?: number;
  /** Ends the call (and a stream) when it aborts; the timeout still applies beside it. */
  signal?: AbortSignal;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** The Idempotency-Key of a POST (default: one made for this call, sent on every attempt). */
  idempotencyKey?: string;
}

/** What the core needs from a client. */
export interface Transport {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly fetch: typeof fetch;
  readonly defaultHeaders: Record<string, string>;
  /** The bearer credential for the next attempt (a stored login refreshes itself here). */
  bearer(): Promise<string>;
}

/** An answer as read: its JSON (or stream, or location) and the HTTP answer. */
export interface Raw<T> {
  data: T;
  response: Response;
}

/**
 * The promise of an answer: await it for the data; `withResponse()` adds the HTTP answer
 * (status, headers) and the request id; `asResponse()` gives the HTTP answer alone.
 */
export class APIPromise<T> implements Promise<T> {
  readonly [Symbol.toStringTag] = 'APIPromise';
  #parsed: Promise<T> | undefined;

  constructor(protected readonly raw: Promise<Raw<T>>) {
    // Whoever awaits this sees the failure; an unawaited call does not crash the process.
    raw.catch(() => undefined);
  }

  private parsed(): Promise<T> {
    this.#parsed ??= this.raw.then((r) => r.data);
    return this.#parsed;
  }

  // biome-ignore lint/suspicious/noThenProperty: an APIPromise is awaited like the Promise it wraps
  then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.parsed().then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.parsed().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.parsed().finally(onfinally);
  }

  /** The data with the HTTP answer and its request id. */
  async withResponse(): Promise<{ data: T; response: Response; requestId: string | null }> {
    const { data, response } = await this.raw;
    return { data, response, requestId: response.headers.get('x-request-id') };
  }

  /** The HTTP answer as it came, its body unread (a JSON body is read again from a copy). */
  async asResponse(): Promise<Response> {
    return (await this.raw).response;
  }
}

/**
 * A cursor-paged list: await it for one page; iterate it (`for await`) for every item, page
 * after page, until `nextCursor` is null. A list that is still growing (a running crawl's
 * results) answers empty pages with a cursor: the iterator waits a little and asks again.
 */
export class PagePromise<P, I> extends APIPromise<P> {
  constructor(
    raw: Promise<Raw<P>>,
    private readonly next: (cursor: string) => PagePromise<P, I>,
    private readonly items: string,
    private readonly signal: AbortSignal | undefined,
  ) {
    super(raw);
  }

  /** Every page, the first included. */
  async *pages(): AsyncGenerator<P> {
    let page: P = await this;
    let idle = 0;
    for (;;) {
      yield page;
      const cursor = (page as { nextCursor?: unknown }).nextCursor;
      if (typeof cursor !== 'string' || cursor === '') return;
      const empty = ((page as Record<string, unknown>)[this.items] as unknown[] | undefined)?.length === 0;
      idle = empty ? idle + 1 : 0;
      if (idle) await sleep(Math.min(250 * 2 ** idle, 5_000), this.signal);
      page = await this.next(cursor);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<I> {
    for await (const page of this.pages()) yield* ((page as Record<string, unknown>)[this.items] as I[]) ?? [];
  }
}

/** Waits `ms`, or until `signal` aborts (then throws APIUserAbortError). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new APIUserAbortError({ cause: signal.reason }));
    const done = () => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(new APIUserAbortError({ cause: signal?.reason }));
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}

export const INITIAL_RETRY_DELAY_MS = 500;
export const MAX_RETRY_DELAY_MS = 8_000;
/** A `Retry-After` longer than this is not waited for: the error is thrown, with `retryAfterMs`. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Exponential backoff with jitter: 0.5 s, 1 s, 2 s... up to 8 s, each up to a quarter shorter. */
export function backoffMs(retry: number, random = Math.random): number {
  const base = Math.min(INITIAL_RETRY_DELAY_MS * 2 ** retry, MAX_RETRY_DELAY_MS);
  return Math.round(base * (1 - 0.25 * random()));
}

/** What an answer's `Retry-After` (seconds or an HTTP date) or `retry-after-ms` asks for, in milliseconds. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Whether a failure may be retried without doing the work twice (docs/clients.md):
 * a GET or HEAD, or a POST the gateway keeps under its Idempotency-Key, on a lost
 * connection, a timeout, 408, 429 or any 5xx; a PUT or DELETE only when refused before
 * any work (429, 503).
 */
export function mayRetry(spec: Pick<OperationSpec, 'method' | 'idempotent'>, status: number | 'connection'): boolean {
  const safe = spec.method === 'GET' || spec.method === 'HEAD' || spec.idempotent;
  if (safe) return status === 'connection' || status === 408 || status === 429 || status >= 500;
  return status === 429 || status === 503;
}

/** A query value as the gateway reads it: arrays repeat the name, objects travel as JSON. */
function appendQuery(query: URLSearchParams, name: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) for (const v of value) appendQuery(query, name, v);
  else if (typeof value === 'object') query.append(name, JSON.stringify(value));
  else query.append(name, String(value));
}

/** The URL and body of one call: path arguments in the path, query fields on the URL, the rest in the body. */
export function buildRequest(
  baseUrl: string,
  spec: OperationSpec,
  pathArgs: unknown[],
  params: Record<string, unknown> | undefined,
): { url: URL; body: Record<string, unknown> | undefined } {
  let route = spec.path;
  spec.pathParams.forEach((name, i) => {
    const value = pathArgs[i];
    if ((typeof value !== 'string' && typeof value !== 'number') || value === '')
      throw new TypeError(`${spec.group}.${spec.name}: \`${name}\` must be a non-empty string`);
    route = route.replace(`{${name}}`, encodeURIComponent(String(value)));
  });
  const url = new URL(baseUrl.replace(/\/+$/, '') + route);
  const inQuery = new Set(spec.params.filter((p) => p.in === 'query').map((p) => p.name));
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params ?? {})) {
    // An unknown field goes where the operation takes fields, and the gateway names it in its 400.
    if (inQuery.has(name) || !spec.hasBody) appendQuery(url.searchParams, name, value);
    else if (value !== undefined) body[name] = value;
  }
  return { url, body: spec.hasBody ? body : undefined };
}

const ACCEPT: Record<OperationSpec['answer'], string> = {
  json: 'application/json',
  ndjson: 'application/x-ndjson, application/json',
  sse: 'text/event-stream, application/json',
  redirect: 'application/json',
};

/** Reads an error answer's body: JSON when it is, else its text. */
async function errorBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export const USER_AGENT = `web-access-sdk-typescript/0.1.0 node/${typeof process === 'undefined' ? 'unknown' : process.version}`;

/**
 * One call of `spec`: attempts until one answers or the retries run out. Each attempt has
 * its own timer; the caller's signal is combined with it, never replaced.
 */
export async function send<T>(
  transport: Transport,
  spec: OperationSpec,
  pathArgs: unknown[],
  params: Record<string, unknown> | undefined,
  options: RequestOptions = {},
): Promise<Raw<T>> {
  const { url, body } = buildRequest(transport.baseUrl, spec, pathArgs, params);
  const maxRetries = options.maxRetries ?? transport.maxRetries;
  // A body's own `timeout` (the server's deadline, in milliseconds) gets its time and 10 s more.
  const serverTimeout = typeof body?.timeout === 'number' ? body.timeout + 10_000 : 0;
  const timeoutMs = options.timeoutMs ?? Math.max(transport.timeoutMs, serverTimeout);
  const idempotencyKey = spec.idempotent ? (options.idempotencyKey ?? `sdk-${crypto.randomUUID()}`) : undefined;
  const userSignal = options.signal;

  for (let retry = 0; ; retry++) {
    if (userSignal?.aborted) throw new APIUserAbortError({ cause: userSignal.reason });
    const headers: Record<string, string> = {
      accept: ACCEPT[spec.answer],
      'user-agent': USER_AGENT,
      ...transport.defaultHeaders,
      ...options.headers,
      authorization: `Bearer ${await transport.bearer()}`,
    };
    if (body) headers['content-type'] = 'application/json';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;

    const attempt = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      attempt.abort(new APITimeoutError(timeoutMs));
    }, timeoutMs);
    const onUserAbort = () => attempt.abort(userSignal?.reason);
    userSignal?.addEventListener('abort', onUserAbort, { once: true });
    const settle = () => {
      clearTimeout(timer);
      userSignal?.removeEventListener('abort', onUserAbort);
    };

    let failure: WebAccessError;
    let waitMs: number | undefined;
    try {
      const response = await transport.fetch(url, {
        method: spec.method,
        headers,
        body: body ? JSON.stringify(body) : undefined,
        signal: attempt.signal,
        redirect: spec.answer === 'redirect' ? 'manual' : 'follow',
      });
      const ok = spec.answer === 'redirect' ? response.status >= 300 && response.status < 400 : response.ok;
      if (ok) {
        if (spec.answer === 'ndjson' || spec.answer === 'sse') {
          // The stream outlives the attempt's timer; the caller's signal (or abort()) ends it.
          clearTimeout(timer);
          return { data: new Stream(response, spec.answer, attempt) as T, response };
        }
        if (spec.answer === 'redirect') {
          settle();
          await response.body?.cancel();
          return { data: { location: response.headers.get('location') ?? '' } as T, response };
        }
        const text = await response.text();
        settle();
        const data = (text ? JSON.parse(text) : null) as T;
        const copy = new Response(text, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
        return { data, response: copy };
      }
      const errorText = await errorBody(response);
      settle();
      waitMs = retryAfterMs(response.headers);
      failure = APIError.from(response.status, errorText, response.headers, waitMs);
      if (!mayRetry(spec, response.status) || retry >= maxRetries) throw failure;
      if (waitMs !== undefined && waitMs > MAX_RETRY_AFTER_MS) throw failure;
    } catch (err) {
      settle();
      if (err instanceof APIError) throw err;
      if (userSignal?.aborted) throw new APIUserAbortError({ cause: userSignal.reason });
      if (err instanceof SyntaxError) throw new WebAccessError(`${spec.id}: the answer is not JSON`, { cause: err });
      if (err instanceof TypeError && !(err.cause || /fetch failed|terminated/i.test(err.message))) throw err;
      failure = timedOut ? new APITimeoutError(timeoutMs) : new APIConnectionError(undefined, { cause: err });
      if (!mayRetry(spec, 'connection') || retry >= maxRetries) throw failure;
      waitMs = undefined;
    }
    await sleep(waitMs ?? backoffMs(retry), userSignal);
  }
}
