// Which URLs a crawl follows, and the one key a URL is known by in a crawl.
//
// The key is written here rather than taken from normalize-url: that package
// also strips `www.` and rewrites protocols by default, and the key must be
// exactly what docs/crawl.md says (and is ESM-only besides).

/** Query parameters that only track a visit; they never name another page. */
const TRACKING = /^(utm_[a-z]+|gclid|fbclid|mc_cid|mc_eid|_ga|yclid|msclkid)$/i;

/** Resources a crawl never fetches as pages. */
const NOT_PAGES =
  /\.(png|jpe?g|gif|webp|avif|svg|ico|bmp|tiff?|mp[34]|m4[av]|mov|avi|webm|ogg|wav|flac|zip|gz|tgz|bz2|xz|7z|rar|tar|exe|dmg|msi|deb|rpm|apk|iso|bin|woff2?|ttf|otf|eot|css|js|mjs|map|json|wasm)$/i;

export interface UrlKeyOptions {
  /** Drop the whole query, so `/a?page=2` and `/a` are one page. */
  ignoreQuery?: boolean;
}

/**
 * The normalised form of a URL: lower-case scheme and host (URL does that),
 * default port dropped, fragment dropped, tracking parameters dropped, the
 * other query keys sorted, a trailing slash folded (except the root).
 * Undefined for what is not an http(s) URL.
 */
export function urlKey(input: string | URL, options: UrlKeyOptions = {}): string | undefined {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  url.username = '';
  url.password = '';
  if (options.ignoreQuery) url.search = '';
  else {
    const params = [...url.searchParams].filter(([k]) => !TRACKING.test(k));
    params.sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a < b ? -1 : 1));
    url.search = new URLSearchParams(params).toString();
  }
  // RFC 3986 6.2.2: percent-encoded unreserved characters are the characters themselves; other escapes in upper case.
  url.pathname = url.pathname.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : `%${hex.toUpperCase()}`;
  });
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.replace(/\/+$/, '') || '/';
  return url.href;
}

export interface ScopeRules {
  start: URL;
  maxDepth: number;
  /** Regular expressions matched against the path (Firecrawl's `includePaths`). */
  includePaths: RegExp[];
  excludePaths: RegExp[];
  allowSubdomains: boolean;
  allowExternalLinks: boolean;
}

/** Compiles path patterns; a bad pattern is reported by its index. */
export function compilePatterns(patterns: readonly string[]): RegExp[] | { bad: number } {
  const out: RegExp[] = [];
  for (const [i, p] of patterns.entries()) {
    try {
      out.push(new RegExp(p));
    } catch {
      return { bad: i };
    }
  }
  return out;
}

/** The registrable part a subdomain check compares: the host less a leading `www.`. */
const siteHost = (host: string) => host.replace(/^www\./, '');

/**
 * Whether a discovered link at `depth` is followed. The start page is always
 * fetched; this judges everything found from it.
 */
export function inScope(link: URL, depth: number, rules: ScopeRules): boolean {
  if (link.protocol !== 'http:' && link.protocol !== 'https:') return false;
  if (depth > rules.maxDepth) return false;
  if (NOT_PAGES.test(link.pathname)) return false;
  if (!rules.allowExternalLinks) {
    const home = siteHost(rules.start.hostname);
    const host = siteHost(link.hostname);
    const sameSite = host === home || (rules.allowSubdomains && host.endsWith(`.${home}`));
    if (!sameSite) return false;
  }
  const path = link.pathname + link.search;
  if (rules.excludePaths.some((re) => re.test(path))) return false;
  if (rules.includePaths.length > 0 && !rules.includePaths.some((re) => re.test(path))) return false;
  return true;
}
