// What a request signed in by the console's cookie must show besides the
// cookie (docs/console.md, "Writes and CSRF"): SameSite=Strict keeps the
// cookie from other sites' requests in today's browsers; the CSRF header and
// the Origin check hold where it does not (an older browser, a sibling
// subdomain). Pure: values in, a verdict out.
import { createHash, timingSafeEqual } from 'node:crypto';

/** The console's cookie: the session's 256-bit token. */
export const SESSION_COOKIE = 'wap_session';

/**
 * The session's CSRF token: derived from the cookie, so nothing more is
 * stored, and one-way, so a page that learns it learns nothing of the cookie
 * (which no script reads: HttpOnly).
 */
export const csrfTokenOf = (sessionToken: string) =>
  createHash('sha256').update(`wap-console-csrf:${sessionToken}`).digest('base64url');

/** A method that changes nothing (RFC 9110 section 9.2.1): no CSRF token asked. */
export const isSafeMethod = (method: string) => method === 'GET' || method === 'HEAD';

/** Whether `origin` is the gateway's own: PUBLIC_URL's origin, or the Host the request came to. */
export function isOwnOrigin(origin: string, host: string | undefined, publicUrl: string): boolean {
  try {
    if (origin === new URL(publicUrl).origin) return true;
    const u = new URL(origin);
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !host) return false;
    // Through URL, so a default port written out (`:443`) compares equal to none.
    return u.origin === origin && new URL(`${u.protocol}//${host}`).host === u.host;
  } catch {
    // `null` (an opaque origin: a sandboxed frame, a data: page) or garbage: not ours.
    return false;
  }
}

export interface WriteCheck {
  method: string;
  origin: string | undefined;
  host: string | undefined;
  /** The X-CSRF-Token header. */
  csrfToken: string | undefined;
  sessionToken: string;
}

/** Whether a request with the session's cookie may go on: a read always; a write with the token, from our origin. */
export function writeAllowed(check: WriteCheck, publicUrl: string): boolean {
  if (isSafeMethod(check.method)) return true;
  if (check.origin !== undefined && !isOwnOrigin(check.origin, check.host, publicUrl)) return false;
  if (check.csrfToken === undefined) return false;
  const expected = Buffer.from(csrfTokenOf(check.sessionToken));
  const given = Buffer.from(check.csrfToken);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
