import type { SiteModel } from './pages.js';
import { STATIC_PAGES } from './pages.js';

export interface RobotsOptions {
  /** Paths every user agent is told to stay out of. */
  readonly disallow: readonly string[];
  /** Seconds between requests, as `Crawl-delay`; omitted when undefined. */
  readonly crawlDelay: number | undefined;
  /** Replaces the generated file entirely. */
  readonly robotsTxt: string | undefined;
}

export function robotsTxt(site: SiteModel, opts: RobotsOptions): string {
  if (opts.robotsTxt !== undefined) return opts.robotsTxt;
  const lines = ['# County Archive robots.txt', 'User-agent: *'];
  for (const path of opts.disallow) lines.push(`Disallow: ${path}`);
  if (opts.crawlDelay !== undefined) lines.push(`Crawl-delay: ${opts.crawlDelay}`);
  lines.push('', 'User-agent: BadBot', 'Disallow: /', '');
  lines.push(`Sitemap: ${site.origin}/sitemap.xml`, `Sitemap: ${site.origin}/sitemap_index.xml`, '');
  return lines.join('\n');
}

/** Every HTML page a crawl from `/` can reach (extras off), in sitemap order. */
export function sitePaths(site: SiteModel): string[] {
  return ['/', ...STATIC_PAGES, ...Array.from({ length: site.pages }, (_, i) => `/articles/${i}`)];
}

function urlset(site: SiteModel, paths: readonly string[]): string {
  const urls = paths.map((p) => {
    const index = /^\/articles\/(\d+)$/.exec(p)?.[1];
    const lastmod = index === undefined ? '2024-12-31' : site.article(Number(index)).date;
    return `  <url><loc>${site.origin}${p}</loc><lastmod>${lastmod}</lastmod></url>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${urls.join('\n')}
</urlset>
`;
}

/** `/sitemap.xml`: every page of the site in one urlset. */
export function sitemap(site: SiteModel): string {
  return urlset(site, sitePaths(site));
}

/** `/sitemap_index.xml`: the same pages split into child sitemaps of `chunk` URLs. */
export function sitemapIndex(site: SiteModel, chunk: number): string {
  const count = Math.ceil(sitePaths(site).length / chunk);
  const entries = Array.from(
    { length: count },
    (_, k) => `  <sitemap><loc>${site.origin}/sitemaps/pages-${k}.xml</loc><lastmod>2024-12-31</lastmod></sitemap>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${entries.join('\n')}
</sitemapindex>
`;
}

/** `/sitemaps/pages-{k}.xml`; undefined past the last chunk. */
export function childSitemap(site: SiteModel, chunk: number, k: number): string | undefined {
  const paths = sitePaths(site).slice(k * chunk, (k + 1) * chunk);
  return paths.length === 0 ? undefined : urlset(site, paths);
}
