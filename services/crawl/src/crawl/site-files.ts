// robots.txt and sitemaps, fetched through the same guarded agent as pages.
import { type FetchAgent, fetchText } from '@wap/fetch';
import { XMLParser } from 'fast-xml-parser';
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
 * Page URLs listed by sitemaps, following sitemap indexes to `maxDepth`
 * levels, at most `maxUrls` of them. A sitemap that fails is skipped: a
 * sitemap only adds to what links find.
 */
export async function sitemapUrls(
  roots: readonly string[],
  settings: { agent: FetchAgent; maxUrls: number; maxFiles?: number; signal?: AbortSignal },
): Promise<string[]> {
  const found: string[] = [];
  const seen = new Set<string>();
  let queue = roots.map((url) => ({ url, level: 0 }));
  let files = 0;
  while (queue.length > 0 && found.length < settings.maxUrls && files < (settings.maxFiles ?? 50)) {
    const next: typeof queue = [];
    for (const { url, level } of queue) {
      if (seen.has(url) || found.length >= settings.maxUrls) continue;
      seen.add(url);
      files++;
      let doc: SitemapDoc;
      try {
        const out = await fetchText(url, {
          agent: settings.agent,
          signal: settings.signal,
          timeoutMs: 15_000,
          maxBytes: 50 * 1024 * 1024,
        });
        if (out.status >= 400) continue;
        doc = xml.parse(out.text) as SitemapDoc;
      } catch {
        continue;
      }
      for (const loc of locs(doc.urlset?.url)) if (found.length < settings.maxUrls) found.push(loc);
      if (level < 2) for (const loc of locs(doc.sitemapindex?.sitemap)) next.push({ url: loc, level: level + 1 });
    }
    queue = next;
  }
  return found;
}
