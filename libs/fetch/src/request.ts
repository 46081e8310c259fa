import { performance } from 'node:perf_hooks';
import { ApiError, isApiError } from '@wap/errors';
import { type AllowList, checkUrl, urlRefusal } from '@wap/netguard';
import type { Dispatcher } from 'undici';
import { defaultFetchAgent, type FetchAgent } from './agent.js';
import { ACCEPT_ENCODING, decodeContent, readCapped, tooLarge } from './body.js';
import { classify, FetchFailure, unreachable } from './failure.js';
import { headerProblem } from './headers.js';
import { browserIdentity, CLIENT_HINT_HEADERS } from './identity.js';

const DESKTOP = browserIdentity(false);
const MOBILE = browserIdentity(true);
export const DESKTOP_USER_AGENT = DESKTOP.userAgent;
export const MOBILE_USER_AGENT = MOBILE.userAgent;

export interface RequestOptions {
  /** The guarded connection pool; default the shared one with no allow-list. */
  agent?: FetchAgent;
  /** The caller's cancellation; its reason is rethrown as is. */
  signal?: AbortSignal;
  /** Budget for the whole fetch, redirects and body included. Default 30 s. */
  timeoutMs?: number;
  /** Wait for response headers, per hop. Default: the whole budget (`timeoutMs`). */
  headersTimeoutMs?: number;
  /** Longest silence between two body chunks. Default: the whole budget (`timeoutMs`). */
  bodyTimeoutMs?: number;
  /** Cap on the body, on the wire and once decompressed. Default 10 MiB. */
  maxBytes?: number;
  /** A cap of its own for a body of this Content-Type (a PDF may be larger than a page); `maxBytes` when undefined. */
  maxBytesFor?: (contentType: string) => number | undefined;
  /** Redirects followed before giving up. Default 10. */
  maxRedirects?: number;
  /** Extra request headers; they win over the defaults except those the engine must own. */
  headers?: Readonly<Record<string, string>>;
  /** Send a phone's User-Agent instead of a desktop one. */
  mobile?: boolean;
}

export interface Redirect {
  /** The URL that answered with a redirect. */
  readonly url: string;
  readonly status: number;
  /** Where it pointed, resolved against `url`. */
  readonly location: string;
}

export interface RawResponse {
  readonly finalUrl: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[]>>;
  /** The Content-Type header as sent; '' when absent. */
  readonly contentType: string;
  /** The body with its Content-Encoding undone. */
  readonly bytes: Buffer;
  readonly redirects: readonly Redirect[];
  readonly timings: { readonly startedAt: number; readonly headersMs: number; readonly totalMs: number };
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// The engine decodes what it asked for, and undici owns framing and connection reuse.
const OWNED = new Set([
  'accept-encoding',
  'connection',
  'content-length',
  'expect',
  'host',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
// Credentials meant for one site must not follow a redirect to another.
const CREDENTIALS = ['authorization', 'cookie', 'proxy-authorization'];

/**
 * GETs a URL, following redirects by hand so each hop's URL is checked
 * (scheme, literal address) before it is requested and its connection passes
 * the guard; every hop is recorded. HTTP error statuses are answers, not errors.
 */
export async function request(input: string | URL, options: RequestOptions, accept: string): Promise<RawResponse> {
  const agent = options.agent ?? defaultFetchAgent();
  const asked = startUrl(input, agent.allow);
  let headers = requestHeaders(options, accept);
  const startedAt = Date.now();
  const t0 = performance.now();
  const deadline = new AbortController();
  const budget = options.timeoutMs ?? 30_000;
  const timer = setTimeout(() => deadline.abort(new FetchFailure('timeout', 'overall timeout')), budget);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const maxRedirects = options.maxRedirects ?? 10;
  let url = asked;
  const redirects: Redirect[] = [];
  const seen = new Set([url.href]);
  try {
    for (;;) {
      const res = await agent.dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        // Chromium sends its client hints to secure origins only.
        headers: trustworthy(url) ? headers : without(headers, CLIENT_HINT_HEADERS),
        signal,
        headersTimeout: options.headersTimeoutMs ?? budget,
        bodyTimeout: options.bodyTimeoutMs ?? budget,
      });
      const location = first(res.headers.location);
      if (REDIRECT_STATUSES.has(res.statusCode) && location) {
        await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
        const next = nextHop(url, location, res.statusCode, agent.allow);
        redirects.push({ url: url.href, status: res.statusCode, location: next.href });
        if (redirects.length > maxRedirects || seen.has(next.href)) {
          const why = seen.has(next.href) ? 'redirect loop' : `more than ${maxRedirects} redirects`;
          throw unreachable(
            asked.href,
            new FetchFailure('too_many_redirects', why, { url: next.href }),
            res.statusCode,
          );
        }
        seen.add(next.href);
        if (next.origin !== url.origin) headers = without(headers, CREDENTIALS);
        url = next;
        continue;
      }
      const headersMs = performance.now() - t0;
      const cap = options.maxBytesFor?.(header(res.headers, 'content-type') ?? '') ?? maxBytes;
      const declared = Number(header(res.headers, 'content-length') ?? Number.NaN);
      if (declared > cap) {
        // undici's body answers a destroy before reading with an abort error of its own; the size is the reason.
        res.body.on('error', () => {});
        try {
          res.body.destroy();
        } catch {}
        throw tooLarge(cap);
      }
      const raw = await readCapped(res.body, cap);
      const bytes = await decodeContent(raw, header(res.headers, 'content-encoding'), cap);
      return {
        finalUrl: url.href,
        status: res.statusCode,
        headers: res.headers as Record<string, string | string[]>,
        contentType: header(res.headers, 'content-type') ?? '',
        bytes,
        redirects,
        timings: { startedAt, headersMs, totalMs: performance.now() - t0 },
      };
    }
  } catch (err) {
    throw translate(err, asked.href, url.href, options.signal, deadline.signal);
  } finally {
    clearTimeout(timer);
  }
}

/** The URL asked for: `bad_request` when it may never be fetched, `page_unreachable` for a refused literal address. */
function startUrl(input: string | URL, allow: AllowList): URL {
  try {
    const url = checkUrl(input, { allow });
    url.hash = '';
    return url;
  } catch (err) {
    if (!isApiError(err) || err.code !== 'page_unreachable') throw err;
    // Rewrapped so every page_unreachable of this lib has the same cause type.
    const failure = classify(err.cause);
    throw failure ? unreachable(String(err.details?.url), failure) : err;
  }
}

/** The next hop, refused before any request when its scheme, credentials, host name or literal address are not allowed. */
function nextHop(from: URL, location: string, status: number, allow: AllowList): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch (cause) {
    throw new FetchFailure('bad_redirect', `unparsable Location after ${status}`, { url: location, cause });
  }
  next.hash = '';
  const refusal = urlRefusal(next, allow);
  if (refusal?.kind === 'address') {
    const { error } = refusal;
    throw new FetchFailure('blocked_address', error.message, { address: error.address, url: next.href, cause: error });
  }
  // A name DNS cannot carry is the same dead end as one DNS does not know.
  if (refusal?.kind === 'host')
    throw new FetchFailure('dns', 'redirect to a host name DNS cannot carry', { url: next.href });
  if (refusal) throw new FetchFailure('bad_redirect', `redirect refused (${refusal.kind})`, { url: next.href });
  return next;
}

function translate(
  err: unknown,
  asked: string,
  hop: string,
  callerSignal: AbortSignal | undefined,
  deadline: AbortSignal,
): unknown {
  if (callerSignal?.aborted) return callerSignal.reason;
  if (isApiError(err)) return err;
  const failure = deadline.aborted ? (deadline.reason as FetchFailure) : classify(err);
  if (!failure) return err;
  if (hop !== asked) failure.url ??= hop;
  return unreachable(asked, failure);
}

function requestHeaders(options: RequestOptions, accept: string): Record<string, string> {
  const identity = options.mobile ? MOBILE : DESKTOP;
  const headers: Record<string, string> = {
    'user-agent': identity.userAgent,
    ...identity.clientHints,
    accept,
    'accept-language': 'en-US,en;q=0.9',
  };
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    const problem = headerProblem(name, value);
    // undici refuses such a header only after its pool has set a connection aside for it, and keeps it.
    if (problem) throw new ApiError('bad_request', { issues: [{ path: `headers.${name}`, message: problem }] });
    const key = name.toLowerCase();
    if (!OWNED.has(key) && !key.startsWith('proxy-')) headers[key] = value;
  }
  headers['accept-encoding'] = ACCEPT_ENCODING;
  return headers;
}

/** A potentially trustworthy origin in the browser's sense: HTTPS, or loopback. */
function trustworthy(url: URL): boolean {
  const host = url.hostname;
  return (
    url.protocol === 'https:' ||
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host.startsWith('127.') ||
    host === '[::1]'
  );
}

function without(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !names.includes(k)));
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function header(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
