// What "on example.com" means, in one place for the compiler, the gate schema
// and the checker. A rule's domain is a pattern: `example.com` covers the site
// and every subdomain; `*.example.com` and `*.gov` cover subdomains only. A
// host is on a pattern by whole labels, so `badexample.com` is not on
// `example.com`.
import { domainToASCII } from 'node:url';
import { parse } from 'tldts';

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const PATTERN = new RegExp(`^(?:\\*\\.)?(?:${LABEL}\\.)*${LABEL}$`);

/**
 * Whether `pattern` names sites a rule can hold: a registrable domain or a
 * host below one, or a wildcard over a domain or a known public suffix
 * (`*.gov`). Never a bare suffix (`com`), an address, or an unknown suffix.
 */
export function isDomainPattern(pattern: string): boolean {
  if (pattern.length > 253 || !PATTERN.test(pattern)) return false;
  const wildcard = pattern.startsWith('*.');
  const host = wildcard ? pattern.slice(2) : pattern;
  const parsed = parse(host, { allowPrivateDomains: true });
  if (parsed.isIp || !(parsed.isIcann || parsed.isPrivate)) return false;
  return parsed.domain !== null || (wildcard && parsed.publicSuffix === host);
}

/**
 * A domain as a person writes it (`https://www.Example.com/shop`, `*.example.com`,
 * `.gov`, `bücher.de`) as a pattern: lowercase, ASCII, no scheme, path, port
 * or `www.`; undefined when it names no site.
 */
export function domainPatternOf(written: string): string | undefined {
  let s = written.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  s = s
    .replace(/[/?#].*$/s, '')
    .replace(/:\d{1,5}$/, '')
    .replace(/\.$/, '');
  const wildcard = s.startsWith('*.') || s.startsWith('.');
  const host = domainToASCII(s.replace(/^\*?\./, ''));
  if (!host) return undefined;
  const bare = host.startsWith('www.') && parse(host.slice(4)).domain !== null ? host.slice(4) : host;
  const pattern = wildcard ? `*.${bare}` : bare;
  return isDomainPattern(pattern) ? pattern : undefined;
}

/** The host an action is on: lowercase, ASCII, no trailing dot; null off the web (about:blank, data:, a broken URL). */
export function hostOf(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return u.hostname.replace(/\.$/, '').toLowerCase();
  } catch {
    return null;
  }
}

/** Whether `host` is on `pattern` (see the file's head). */
export function onDomain(host: string, pattern: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1));
  return host === pattern || host.endsWith(`.${pattern}`);
}

/** The first of `patterns` that `host` is on, if any. */
export const matchingDomain = (host: string, patterns: readonly string[]): string | undefined =>
  patterns.find((p) => onDomain(host, p));
