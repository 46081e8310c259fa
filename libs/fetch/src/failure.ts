import { ApiError } from '@wap/errors';
import { isBlockedAddressError } from '@wap/netguard';

/** What went wrong, finer than the catalogue's reasons: for logs and tests, never for the wire. */
export type FailureKind =
  | 'dns'
  | 'refused'
  | 'reset'
  | 'connect'
  | 'timeout'
  | 'tls'
  | 'blocked_address'
  | 'bad_redirect'
  | 'too_many_redirects'
  | 'too_large'
  | 'protocol'
  | 'decode';

/** The catalogue's closed `page_unreachable.reason` values. */
type Reason =
  | 'dns'
  | 'connect'
  | 'tls'
  | 'timeout'
  | 'http_status'
  | 'blocked'
  | 'private_address'
  | 'too_large'
  | 'too_many_redirects';

const REASON: Record<FailureKind, Reason> = {
  dns: 'dns',
  refused: 'connect',
  reset: 'connect',
  connect: 'connect',
  timeout: 'timeout',
  tls: 'tls',
  blocked_address: 'private_address',
  bad_redirect: 'blocked',
  too_many_redirects: 'too_many_redirects',
  too_large: 'too_large',
  protocol: 'connect',
  decode: 'connect',
};

/** The cause attached to every `page_unreachable` this lib throws. */
export class FetchFailure extends Error {
  override readonly name = 'FetchFailure';
  readonly kind: FailureKind;
  /** The blocked address, for `blocked_address`. */
  readonly address: string | undefined;
  /** The hop that failed, when it is not the URL asked for. */
  url: string | undefined;
  constructor(kind: FailureKind, message: string, options: { address?: string; url?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.kind = kind;
    this.address = options.address;
    this.url = options.url;
  }
}

/** `page_unreachable` for `url`; `status` only where the reason is `http_status`. */
export function unreachable(url: string, failure: FetchFailure, status?: number): ApiError {
  const reason = REASON[failure.kind];
  const details = reason === 'http_status' && status !== undefined ? { url, reason, status } : { url, reason };
  return new ApiError('page_unreachable', details, { cause: failure });
}

const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'ENODATA', 'ESERVFAIL', 'ENOTIMP']);
const TIMEOUT = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const RESET = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']);
const CONNECT = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL']);
const TLS =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_OSSL_|HOSTNAME_MISMATCH)/;

/**
 * Reads a network error, however wrapped (cause chains, happy-eyeballs
 * AggregateErrors), as a FetchFailure; undefined when it is not a network
 * error at all, so our own bugs surface as `internal` instead of hiding here.
 */
export function classify(err: unknown): FetchFailure | undefined {
  const seen = new Set<unknown>();
  const queue = [err];
  let found: FetchFailure | undefined;
  while (queue.length > 0) {
    const e = queue.shift();
    if (!(e instanceof Error) || seen.has(e)) continue;
    seen.add(e);
    if (e instanceof FetchFailure) return e;
    if (isBlockedAddressError(e))
      return new FetchFailure('blocked_address', e.message, { address: e.address, cause: e });
    found ??= byCode(e);
    queue.push(e.cause, ...(e instanceof AggregateError ? e.errors : []));
  }
  return found;
}

function byCode(e: Error): FetchFailure | undefined {
  const code = String((e as { code?: unknown }).code ?? '');
  const as = (kind: FailureKind) => new FetchFailure(kind, e.message, { cause: e });
  // getaddrinfo's EINVAL: a name too long for DNS, refused before any query.
  if (DNS.has(code) || (code === 'EINVAL' && (e as { syscall?: unknown }).syscall === 'getaddrinfo')) return as('dns');
  if (code === 'ECONNREFUSED') return as('refused');
  if (TIMEOUT.has(code)) return as('timeout');
  if (RESET.has(code)) return as('reset');
  if (CONNECT.has(code)) return as('connect');
  if (TLS.test(code)) return as('tls');
  if (code.startsWith('HPE_') || code.startsWith('UND_ERR_')) return as('protocol');
  return undefined;
}
