// The one way the console talks to the gateway: same-origin JSON with the session cookie,
// the CSRF token on every write, the Error object thrown as an ApiFailure, and a 401
// sending the person to the sign-in page.

/** An Error object of the API (docs/errors.md) as a thrown error. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | undefined,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

let csrfToken = '';
let onUnauthorized: () => void = () => {};

/** The token of the session signed in now; kept in memory only. */
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** What a 401 does (the app routes to the sign-in page). */
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
  /** A 401 is the answer itself (signing in, probing the session), not a reason to leave the page. */
  keepOn401?: boolean;
}

/** The headers of a request: JSON, and the CSRF token when it writes. */
function headersFor(method: string, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (hasBody) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  return headers;
}

/** The Error object of a failed answer; the stream form nests it under `error`. */
async function failureOf(res: Response): Promise<ApiFailure> {
  const body = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  const error = (body && typeof body.error === 'object' ? body.error : body) as Record<string, unknown> | undefined;
  const code = typeof error?.code === 'string' ? error.code : 'internal';
  const message = typeof error?.message === 'string' ? error.message : `The server answered ${res.status}.`;
  const details = typeof error?.details === 'object' ? (error.details as Record<string, unknown>) : undefined;
  return new ApiFailure(res.status, code, message, details);
}

/** Sends one request and answers the raw response once it is known to be a success. */
export async function send(path: string, options: RequestOptions = {}): Promise<Response> {
  const method = options.method ?? 'GET';
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: headersFor(method, options.body !== undefined),
    body: options.body === undefined ? null : JSON.stringify(options.body),
    signal: options.signal ?? null,
  });
  if (res.ok) return res;
  const failure = await failureOf(res);
  if (res.status === 401 && !options.keepOn401) onUnauthorized();
  throw failure;
}

/** A JSON request; a 204 answers undefined. */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const res = await send(path, options);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/**
 * Whether asking again may get another answer: the server was not reached, failed, was too
 * busy or too slow. A refusal (not found, no access, a bad request) would be the same again.
 */
export function worthRetrying(error: unknown): boolean {
  return !(error instanceof ApiFailure) || error.status >= 500 || error.status === 408 || error.status === 429;
}

/** A query string from the defined, non-empty values. */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') q.set(key, String(value));
  const text = q.toString();
  return text ? `?${text}` : '';
}
