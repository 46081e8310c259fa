import { getDomain } from 'tldts';

/**
 * The site a page is on, for a person's control link: its registrable domain
 * (the public suffix list's, `shop.example.co.uk` → `example.co.uk`), or its
 * host when it has none (an address, localhost); null off the web.
 */
export function siteOf(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    // Private suffixes count (github.io, herokuapp.com): each of their sites is someone else's.
    return (getDomain(u.hostname, { allowPrivateDomains: true }) ?? u.hostname).toLowerCase();
  } catch {
    return null;
  }
}
