import { z } from 'zod';
import { firecrawlBookkeeping } from '../bookkeeping.js';
import { capability } from '../types.js';
import { toUsageObject, usageObject } from '../usage-shape.js';
import { SITEMAP } from './crawl.js';
import { pageUrl } from './scrape.js';

export const MAX_MAP_LIMIT = 100_000;

const body = z.strictObject({
  url: pageUrl('The site to map: its start page (http or https).'),
  search: z
    .string()
    .max(500)
    .optional()
    .describe('Words to rank the URLs by: those whose address or title holds more of them come first.'),
  includeSubdomains: z.boolean().default(true).describe('Keep URLs of subdomains of the start host too.'),
  ignoreQueryParameters: z
    .boolean()
    .default(true)
    .describe('Drop the query of every URL, so `/a?x=1` and `/a` are one URL.'),
  sitemap: z
    .enum(['include', 'skip', 'only'])
    .default('include')
    .describe(
      '`include`: the sitemaps and the start page’s links; `skip`: links only (followed a few hops from the start page); `only`: the sitemaps only.',
    ),
  limit: z.number().int().min(1).max(MAX_MAP_LIMIT).default(5_000).describe('The most URLs answered.'),
  timeout: z
    .number()
    .int()
    .min(1_000)
    .max(300_000)
    .optional()
    .describe('Milliseconds the map may take (default 30 s); what was found by then is answered.'),
  ...firecrawlBookkeeping,
});

export const mapRow = capability({
  name: 'map',
  method: 'post',
  path: '/v1/map',
  tag: 'Crawl',
  summary: 'The URLs of a site, fast',
  description:
    'Lists the pages of a site without rendering any: what robots.txt’s `Sitemap:` lines (else /sitemap.xml) list, sitemap indexes and gzipped sitemaps followed, and the start page’s links; without a sitemap, links are followed a few hops from the start page. URLs of the start host (and its subdomains with `includeSubdomains`), one per page, ranked by `search` when given. 1 credit per map.',
  openWorld: true,
  backend: 'crawl',
  bills: ['page_load'],
  mcpTool: 'service_map_site',
  request: { body },
  example: { url: 'https://example.com', search: 'pricing', limit: 100 },
  response: z.object({
    success: z.literal(true),
    links: z
      .array(
        z.object({
          url: z.string(),
          title: z.string().optional().describe('The page’s title, where the map read the page.'),
        }),
      )
      .describe('The URLs found, most relevant first with `search`, else in the order found.'),
    usage: usageObject,
  }),
  errors: ['page_unreachable', 'quota_exceeded'],
  handler: async ({ principal, upstreams, operationId, requestId, signal }, { body: b }) => {
    const out = await upstreams.crawl.map(
      {
        workspaceId: principal.workspaceId,
        requestId: operationId,
        reference: requestId,
        url: b.url,
        search: b.search ?? '',
        includeSubdomains: b.includeSubdomains,
        ignoreQueryParameters: b.ignoreQueryParameters,
        sitemap: SITEMAP[b.sitemap],
        limit: b.limit,
        timeoutMs: b.timeout ?? 0,
      },
      { timeoutMs: (b.timeout ?? 30_000) + 15_000, signal },
    );
    return {
      success: true as const,
      links: out.links.map((l) => (l.title ? { url: l.url, title: l.title } : { url: l.url })),
      usage: toUsageObject(out.usage),
    };
  },
});
