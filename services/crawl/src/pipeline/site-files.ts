// robots.txt and sitemaps, fetched through the same guarded agent as pages.
import { type FetchAgent, fetchText } from '@wap/fetch';
import { XMLParser } from 'fast-xml-parser';
import pMap from 'p-map';
import robotsParser from 'robots-parser';

/** The name robots.txt rules are matched against. */
export const CRAWLER_AGENT = 'WebAccessBot';

export interface Robots {
  allowed(url: string): boolean;
  /** `Crawl-delay` in ms for our agent (or `*`), if the file sets one. */
  delayMs: number | undefined;
  sitemaps: string[];
}

/** The robots.txt text of an origin; null when it has none (404, 410, unreachable: everything allowed). */
export async function fetchRobotsTxt(origin: string, agent: FetchAgent, signal?: AbortSignal): Promise<string | null> {
  try {
    const out = await fetchText(`${origin}/robots.txt`, { agent, signal, timeoutMs: 10_000, maxBytes: 512 * 1024 });
    if (out.status >= 400) return null;
    return out.text;
  } catch {
    return null;
  }
}

export function parseRobots(origin: string, text: string | null): Robots {
  if (text === null) return { allowed: () => true, delayMs: undefined, sitemaps: [] };
  const robots = robotsParser(`${origin}/robots.txt`, text);
  const delay = robots.getCrawlDelay(CRAWLER_AGENT);
  return {
    allowed: (url) => robots.isAllowed(url, CRAWLER_AGENT) !== false,
    delayMs: delay === undefined ? undefined : Math.min(Math.round(delay * 1000), 60_000),
    sitemaps: robots.getSitemaps(),
  };
}

const xml = new XMLParser({ ignoreAttributes: true, isArray: (name) => name === 'url' || name === 'sitemap' });

interface SitemapDoc {
  urlset?: { url?: { loc?: unknown }[] };
  sitemapindex?: { sitemap?: { loc?: unknown }[] };
}

const locs = (entries: { loc?: unknown }[] | undefined) =>
  (entries ?? []).flatMap((e) => (typeof e.loc === 'string' ? [e.loc.trim()] : []));

/**
 * Page URLs listed by sitemaps, following sitemap indexes to 2 levels below
 * the roots, at most `maxUrls` of them, in the order the files list them. The
 * files of one level are fetched `concurrency` at a time. A sitemap that fails
 * is skipped: a sitemap only adds to what links find.
 */
export async function sitemapUrls(
  roots: readonly string[],
  settings: {
    agent: FetchAgent;
    maxUrls: number;
    maxFiles?: number;
    concurrency?: number;
    signal?: AbortSignal;
    /** Called for each sitemap file read. */
    onFile?: () => void;
  },
): Promise<string[]> {
  const found: string[] = [];
  const seen = new Set<string>();
  const maxFiles = settings.maxFiles ?? 50;
  let level = roots.filter((url) => !seen.has(url) && seen.add(url));
  let fetched = 0;
  for (let depth = 0; level.length > 0 && depth <= 2 && fetched < maxFiles; depth++) {
    const files = level.slice(0, maxFiles - fetched);
    fetched += files.length;
    const docs = await pMap(files, (url) => readSitemap(url, settings), { concurrency: settings.concurrency ?? 1 });
    const next: string[] = [];
    for (const doc of docs) {
      for (const loc of locs(doc?.urlset?.url)) if (found.length < settings.maxUrls) found.push(loc);
      for (const loc of locs(doc?.sitemapindex?.sitemap)) {
        if (seen.has(loc)) continue;
        seen.add(loc);
        next.push(loc);
      }
    }
    if (found.length >= settings.maxUrls) break;
    level = next;
  }
  return found;
}

/** Parses a small sitemap a few times, so a fresh process's first crawl does not pay for compiling the parser. */
export function warmSitemapParser(rounds = 20): void {
  const urls = Array.from({ length: 50 }, (_, i) => `<url><loc>https://example.com/p/${i}</loc></url>`).join('');
  const doc = `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`;
  for (let i = 0; i < rounds; i++) locs((xml.parse(doc) as SitemapDoc).urlset?.url);
}

async function readSitemap(url: string, settings: { agent: FetchAgent; signal?: AbortSignal; onFile?: () => void }) {
  try {
    const out = await fetchText(url, {
      agent: settings.agent,
      signal: settings.signal,
      timeoutMs: 15_000,
      maxBytes: 50 * 1024 * 1024,
    });
    if (out.status >= 400) return undefined;
    const doc = xml.parse(out.text) as SitemapDoc;
    settings.onFile?.();
    return doc;
  } catch {
    return undefined;
  }
}
