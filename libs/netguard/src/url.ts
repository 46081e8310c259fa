import { isIP } from 'node:net';
import { ApiError } from '@wap/errors';
import type { AllowList } from './address.js';
import { assertAllowedAddress, BlockedAddressError } from './lookup.js';

export const MAX_HOST_NAME = 253;
export const MAX_HOST_LABEL = 63;
/** The issue's message for a URL whose host name fails hostNameFits. */
export const HOST_NAME_TOO_LONG = `has a host name longer than DNS allows (${MAX_HOST_NAME} characters, ${MAX_HOST_LABEL} per label)`;

/** Why a URL may not be fetched, before any connection is tried. */
export type UrlRefusal =
  | { readonly kind: 'syntax' | 'scheme' | 'credentials' | 'host' }
  | { readonly kind: 'address'; readonly error: BlockedAddressError };

const MESSAGES = {
  syntax: 'must be an absolute http or https URL',
  scheme: 'only http and https URLs can be fetched',
  // Credentials in a URL end up in logs, results and crawl frontiers; a site
  // that needs them takes an Authorization header instead.
  credentials: 'must not contain a user name or password; send an Authorization header instead',
  host: HOST_NAME_TOO_LONG,
} as const;

/**
 * Whether DNS can carry a host name (RFC 1035: 253 characters written out, one
 * trailing dot aside, and 63 per label). A longer name is no site anywhere, and
 * getaddrinfo refuses it with EINVAL rather than "not found".
 */
export function hostNameFits(hostname: string): boolean {
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  return name.length <= MAX_HOST_NAME && name.split('.').every((label) => label.length <= MAX_HOST_LABEL);
}

/**
 * The refusal for a URL that WHATWG URL already parsed, if any. The URL parser
 * has turned `2130706433`, `0x7f.1`, `0177.0.0.1` and percent-encoded hosts
 * into dotted IPv4, and IPv6 into its compressed form, so literal addresses
 * are checked here in the one form the guard reads. Host names are left to
 * the guarded lookup at connect time: resolving here would check an answer
 * that the connection may not get.
 */
export function urlRefusal(url: URL, allow?: AllowList): UrlRefusal | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { kind: 'scheme' };
  if (url.hostname === '') return { kind: 'syntax' };
  if (url.username !== '' || url.password !== '') return { kind: 'credentials' };
  if (!hostNameFits(url.hostname)) return { kind: 'host' };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) !== 0) {
    try {
      assertAllowedAddress(host, allow);
    } catch (err) {
      if (err instanceof BlockedAddressError) return { kind: 'address', error: err };
      throw err;
    }
  }
  return undefined;
}

export interface CheckUrlOptions {
  allow?: AllowList;
  /** The request field the URL came from, for `bad_request` issues. */
  field?: string;
}

/**
 * Parses a URL a caller asked to fetch. A URL that cannot be fetched by rule
 * is the caller's `bad_request`; a literal address the guard refuses is
 * `page_unreachable` (reason `blocked`), as the same host behind a name would be.
 */
export function checkUrl(input: string | URL, { allow, field = 'url' }: CheckUrlOptions = {}): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw badRequest(field, 'syntax');
  }
  const refusal = urlRefusal(url, allow);
  if (!refusal) return url;
  if (refusal.kind === 'address') {
    throw new ApiError('page_unreachable', { url: url.href, reason: 'private_address' }, { cause: refusal.error });
  }
  throw badRequest(field, refusal.kind);
}

function badRequest(field: string, kind: keyof typeof MESSAGES): ApiError {
  return new ApiError('bad_request', { issues: [{ path: field, message: MESSAGES[kind] }] });
}
