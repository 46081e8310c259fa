// crawl.Map: the URLs of a site, fast and without rendering (docs/crawl.md, "Map").
import { create } from '@bufbuild/protobuf';
import { billed } from '@wap/billing';
import { isApiError } from '@wap/errors';
import { checkUrl } from '@wap/netguard';
import { crawl } from '@wap/proto';
import type { CallContext } from '@wap/rpc';
import pMap from 'p-map';
import { inScope, type ScopeRules, urlKey } from '../domain/scope.js';
import { loadPage } from '../pipeline/scrape.js';
import { fetchRobotsTxt, parseRobots, sitemapUrls } from '../pipeline/site-files.js';
import type { CrawlDeps } from './deps.js';
import { invalid, requireOperation } from './parse.js';

export const DEFAULT_MAP_LIMIT = 5_000;
export const MAX_MAP_LIMIT = 100_000;
const DEFAULT_MAP_TIMEOUT_MS = 30_000;
/** Sitemap files one map reads at most (indexes and their children). */
const MAX_SITEMAP_FILES = 200;
/** Pages fetched for their links when the sitemaps did not list the site: the start page, then what it links to. */
const MAX_LINK_PAGES = 1_000;
const LINK_CONCURRENCY = 8;

export type MapDeps = Pick<CrawlDeps, 'agent' | 'allow' | 'extractor' | 'ledger' | 'log' | 'documents'>;

/**
 * Reads the site's sitemaps (those robots.txt declares, else /sitemap.xml; indexes
 * and gzipped files followed) and the start page's links, fetched without a
 * browser; when the sitemaps list nothing, follows the site's links from the start
 * page a few hops. Keeps the start host's URLs (and its subdomains' when asked),
 * one per page, ranked by `search` when given. One page load is billed.
 */
export function map(deps: MapDeps) {
  return async (req: crawl.MapRequest, ctx: CallContext): Promise<crawl.MapResponse> => {
    const { start, limit, timeoutMs } = parseMap(req, deps);
    const { result, usage } = await billed(
      deps.ledger,
      {
        workspaceId: req.workspaceId,
        operationId: req.requestId,
        capability: 'map',
        reference: req.reference || undefined,
      },
      [{ meter: 'page_load', quantity: 1n }],
      async () => ({ result: await mapSite(deps, req, start, limit, timeoutMs, ctx.signal), used: PAGE }),
    );
    return create(crawl.MapResponseSchema, { ...result, usage });
  };
}

const PAGE = [{ meter: 'page_load' as const, quantity: 1n }];

export function parseMap(req: crawl.MapRequest, deps: Pick<MapDeps, 'allow'>) {
  requireOperation(req);
  if (req.limit < 0 || req.limit > MAX_MAP_LIMIT) invalid('limit', `between 1 and ${MAX_MAP_LIMIT}`);
  if (req.timeoutMs < 0) invalid('timeoutMs', 'must be positive');
  const start = checkUrl(req.url, { allow: deps.allow });
  if (!urlKey(start)) invalid('url', 'must be an http or https URL');
  return { start, limit: req.limit || DEFAULT_MAP_LIMIT, timeoutMs: req.timeoutMs || DEFAULT_MAP_TIMEOUT_MS };
}

interface Found {
  links: crawl.MapLink[];
  sitemapsRead: number;
  pagesRead: number;
}

async function mapSite(
  deps: MapDeps,
  req: crawl.MapRequest,
  start: URL,
  limit: number,
  timeoutMs: number,
  callerSignal: AbortSignal,
): Promise<Found> {
  const signal = AbortSignal.any([callerSignal, AbortSignal.timeout(timeoutMs)]);
  const rules: ScopeRules = {
    start,
    maxDepth: Number.MAX_SAFE_INTEGER,
    includePaths: [],
    excludePaths: [],
    allowSubdomains: req.includeSubdomains,
    allowExternalLinks: false,
  };
  const found = new Map<string, crawl.MapLink>();
  const add = (raw: string, title = '') => {
    let url: URL;
    try {
      url = new URL(raw, start);
    } catch {
      return false;
    }
    if (!inScope(url, 0, rules)) return false;
    const key = urlKey(url, { ignoreQuery: req.ignoreQueryParameters });
    if (!key || found.has(key)) return false;
    found.set(key, create(crawl.MapLinkSchema, { url: key, title }));
    return true;
  };
  add(start.href);
  // The sitemaps are read while the start page loads.
  const sitemap = req.sitemap === crawl.SitemapMode.SKIP ? undefined : readSitemaps(deps, start, limit, signal);
  const startLinks = req.sitemap === crawl.SitemapMode.ONLY ? undefined : pageLinks(deps, start.href, signal);
  const listed = sitemap ? await sitemap : { urls: [], files: 0 };
  for (const url of listed.urls) add(url);
  let pagesRead = 0;
  if (startLinks) {
    const first = await startLinks;
    if (first) {
      pagesRead++;
      const home = found.get(urlKey(start, { ignoreQuery: req.ignoreQueryParameters }) ?? '');
      if (home) home.title = first.title;
      const fresh = first.links.filter((l) => add(l));
      // Without a sitemap that lists the site, its links are followed, breadth first, within the budget.
      if (listed.urls.length === 0) pagesRead += await walkLinks(deps, fresh, add, limit, signal, found);
    }
  }
  const links = rank([...found.values()], req.search).slice(0, limit);
  return { links, sitemapsRead: listed.files, pagesRead };
}

/** The page URLs the site's sitemaps list; what fails is skipped (a map answers what it could find). */
async function readSitemaps(deps: MapDeps, start: URL, limit: number, signal: AbortSignal) {
  const robots = parseRobots(start.origin, await fetchRobotsTxt(start.origin, deps.agent, signal));
  const roots = robots.sitemaps.length > 0 ? robots.sitemaps : [`${start.origin}/sitemap.xml`];
  let files = 0;
  const urls = await sitemapUrls(roots, {
    agent: deps.agent,
    maxUrls: limit,
    maxFiles: MAX_SITEMAP_FILES,
    concurrency: 4,
    signal,
    onFile: () => {
      files++;
    },
  }).catch(() => []);
  return { urls, files };
}

/** A page's links and title, fetched without a browser; undefined when it cannot be read. */
async function pageLinks(deps: MapDeps, url: string, signal: AbortSignal) {
  try {
    const options = create(crawl.ScrapeOptionsSchema, {
      formats: [crawl.Format.LINKS],
      engine: crawl.Engine.FETCH,
      timeoutMs: 10_000,
    });
    const { extracted } = await loadPage(deps, url, options, signal, { withLinks: true });
    return { links: 'links' in extracted ? extracted.links : [], title: extracted.metadata?.title ?? '' };
  } catch (err) {
    if (!isApiError(err) && !signal.aborted) deps.log.warn({ err, url }, 'map could not read a page');
    return undefined;
  }
}

/** Follows links from `frontier` breadth first until `limit` URLs, MAX_LINK_PAGES pages or the deadline. */
async function walkLinks(
  deps: MapDeps,
  frontier: string[],
  add: (url: string) => boolean,
  limit: number,
  signal: AbortSignal,
  found: Map<string, crawl.MapLink>,
): Promise<number> {
  let read = 0;
  let level = frontier;
  while (level.length > 0 && read < MAX_LINK_PAGES && found.size < limit && !signal.aborted) {
    const batch = level.slice(0, MAX_LINK_PAGES - read);
    read += batch.length;
    const next: string[] = [];
    await pMap(
      batch,
      async (url) => {
        if (found.size >= limit || signal.aborted) return;
        const page = await pageLinks(deps, url, signal);
        for (const l of page?.links ?? []) if (add(l)) next.push(l);
      },
      { concurrency: LINK_CONCURRENCY },
    );
    level = next;
  }
  return read;
}

/**
 * Most relevant first: a URL scores 2 for each word that is a whole word of its path, query
 * or title, 1 for each it only holds inside another (`7` in `/17`); ties keep the order found.
 */
export function rank(links: crawl.MapLink[], search: string): crawl.MapLink[] {
  const words = tokens(search);
  if (words.length === 0) return links;
  const score = (l: crawl.MapLink) => {
    const url = new URL(l.url);
    const text = `${safeDecode(url.pathname + url.search)} ${l.title}`.toLowerCase();
    const whole = new Set(tokens(text));
    return words.reduce((s, w) => s + (whole.has(w) ? 2 : text.includes(w) ? 1 : 0), 0);
  };
  return links
    .map((l, i) => ({ l, i, s: score(l) }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((x) => x.l);
}

const tokens = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);

const safeDecode = (url: string) => {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
};
