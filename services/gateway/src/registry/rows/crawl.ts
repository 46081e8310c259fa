import { create } from '@bufbuild/protobuf';
import { crawl } from '@wap/proto';
import { z } from 'zod';
import { firecrawlBookkeeping } from '../bookkeeping.js';
import { capability } from '../types.js';
import { isoTime, toUsageObject, usageObject } from '../usage-shape.js';
import { documentSchema, formatNames, pageUrl, scrapeOptions, toDocumentJson, toScrapeOptions } from './scrape.js';

/** The default `limit`: a crawl holds `limit` credits while it runs, so the default stays modest. */
export const DEFAULT_CRAWL_LIMIT = 100;
export const MAX_CRAWL_LIMIT = 10_000;

const SITEMAP = { include: crawl.SitemapMode.INCLUDE, skip: crawl.SitemapMode.SKIP, only: crawl.SitemapMode.ONLY };

const isRegex = (p: string) => {
  try {
    new RegExp(p);
    return true;
  } catch {
    return false;
  }
};
const pattern = z.string().max(500).refine(isRegex, 'not a valid regular expression');

const body = z.strictObject({
  url: pageUrl('Where the crawl starts (http or https).'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_CRAWL_LIMIT)
    .default(DEFAULT_CRAWL_LIMIT)
    .describe(
      'The spend cap: at most this many pages are delivered and billed, whatever the concurrency. `limit` credits are held while the crawl runs; what is not used is released when it ends.',
    ),
  maxDepth: z
    .number()
    .int()
    .min(0)
    .max(100)
    .default(10)
    .describe('Link hops from the start page (sitemap URLs count as one hop).'),
  includePaths: z
    .array(pattern)
    .max(100)
    .default([])
    .describe('Regular expressions; when given, only URLs whose path (and query) matches one are followed.'),
  excludePaths: z
    .array(pattern)
    .max(100)
    .default([])
    .describe('Regular expressions; URLs whose path (and query) matches one are never followed.'),
  allowSubdomains: z.boolean().default(false).describe('Follow links to subdomains of the start host.'),
  allowExternalLinks: z.boolean().default(false).describe('Follow links to other sites.'),
  sitemap: z
    .enum(['include', 'skip', 'only'])
    .default('include')
    .describe(
      '`include`: URLs from the sitemaps join those found by links; `skip`: links only; `only`: the sitemaps only.',
    ),
  ignoreQueryParameters: z.boolean().default(false).describe('Treat `/a?x=1` and `/a` as the same page.'),
  maxConcurrency: z
    .number()
    .int()
    .min(1)
    .max(20)
    .default(4)
    .describe('Requests out to one host at once (pages being converted and stored do not count).'),
  delay: z
    .number()
    .min(0)
    .max(60)
    .default(0)
    .describe("Seconds between two requests to one host; the site's robots.txt `Crawl-delay` wins when longer."),
  scrapeOptions: scrapeOptions.optional().describe('How each page is scraped (as for POST /v1/scrape).'),
  ...firecrawlBookkeeping,
});

const failure = z.object({
  url: z.string(),
  code: z.string().describe('The error code the page failed with (never billed).'),
  details: z.record(z.string(), z.unknown()).optional(),
});

export const crawlObject = z.object({
  id: z.string(),
  status: z
    .enum(['running', 'cancelled', 'settled'])
    .describe(
      '`running` takes pages; `cancelled` takes no new page while pages in flight finish; `settled` is final: the unused hold is released.',
    ),
  outcome: z
    .enum(['completed', 'failed', 'limit_reached', 'cancelled', 'expired'])
    .nullable()
    .describe(
      'How a settled crawl ended; null while it runs. `failed`: the start page could not be fetched, so nothing was crawled (its failure is in `failures`, nothing is billed).',
    ),
  url: z.string(),
  limit: z.number().int(),
  discovered: z.number().int().describe('URLs found and in scope (start page included).'),
  completed: z.number().int().describe('Pages delivered (and billed).'),
  failed: z.number().int().describe('Pages that could not be fetched (not billed); see `failures`.'),
  skipped: z.number().int().describe('URLs not fetched: robots.txt, the limit reached, or the crawl stopped.'),
  usage: usageObject.describe('What the crawl has cost so far: reading it never adds to it.'),
  failures: z.array(failure),
  createdAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});

export function toCrawlJson(c: crawl.Crawl | undefined) {
  return {
    id: c?.id ?? '',
    status: (c?.status ?? 'running') as 'running' | 'cancelled' | 'settled',
    outcome: (c?.outcome || null) as 'completed' | 'failed' | 'limit_reached' | 'cancelled' | 'expired' | null,
    url: c?.url ?? '',
    limit: c?.limit ?? 0,
    discovered: c?.discovered ?? 0,
    completed: c?.completed ?? 0,
    failed: c?.failed ?? 0,
    skipped: c?.skipped ?? 0,
    usage: toUsageObject(c?.usage),
    failures: (c?.failures ?? []).map((f) => ({
      url: f.url,
      code: f.code,
      ...(f.details ? { details: f.details } : {}),
    })),
    createdAt: isoTime(c?.createdAt),
    finishedAt: isoTime(c?.finishedAt),
  };
}

const params = z.strictObject({ id: z.string().min(1).max(100).describe('The crawl id.') });

export const crawlRow = capability({
  name: 'crawl',
  method: 'post',
  path: '/v1/crawl',
  tag: 'Crawl',
  summary: 'Start a crawl',
  description:
    'Walks a site from a start URL (robots.txt respected, sitemaps used, per-host politeness) and delivers each page as it is scraped. Returns at once with the crawl id. 1 credit per delivered page; `limit` is the spend cap.',
  openWorld: true,
  backend: 'crawl',
  bills: ['page_load'],
  mcpTool: 'service_crawl_start',
  request: { body },
  example: {
    url: 'https://example.com/blog/',
    limit: 50,
    maxDepth: 2,
    includePaths: ['^/blog/'],
    scrapeOptions: { formats: ['markdown'], onlyMainContent: true },
  },
  response: z.object({ success: z.literal(true), id: z.string(), crawl: crawlObject }),
  errors: ['page_unreachable', 'quota_exceeded'],
  handler: async ({ principal, upstreams, operationId, signal }, { body: b }) => {
    const out = await upstreams.crawl.startCrawl(
      {
        workspaceId: principal.workspaceId,
        requestId: operationId,
        url: b.url,
        options: create(crawl.CrawlOptionsSchema, {
          limit: b.limit,
          maxDepth: b.maxDepth,
          includePaths: b.includePaths,
          excludePaths: b.excludePaths,
          allowSubdomains: b.allowSubdomains,
          allowExternalLinks: b.allowExternalLinks,
          sitemap: SITEMAP[b.sitemap],
          ignoreQueryParameters: b.ignoreQueryParameters,
          maxConcurrencyPerHost: b.maxConcurrency,
          delayMs: Math.round(b.delay * 1000),
          scrapeOptions: b.scrapeOptions ? toScrapeOptions(b.scrapeOptions) : undefined,
        }),
      },
      { signal },
    );
    return { success: true as const, id: out.crawl?.id ?? '', crawl: toCrawlJson(out.crawl) };
  },
});

export const crawlGetRow = capability({
  name: 'crawl.get',
  method: 'get',
  path: '/v1/crawl/{id}',
  tag: 'Crawl',
  summary: 'Status of a crawl',
  description:
    'Status, pages discovered, completed, failed and skipped, the spend so far and per-URL failures. A plain read: safe to poll, never billed.',
  backend: 'crawl',
  bills: [],
  mcpTool: 'service_crawl_get',
  request: { params },
  response: z.object({ success: z.literal(true), crawl: crawlObject }),
  errors: ['not_found'],
  handler: async ({ principal, upstreams, signal }, { params: p }) => {
    const out = await upstreams.crawl.getCrawl({ workspaceId: principal.workspaceId, crawlId: p.id }, { signal });
    return { success: true as const, crawl: toCrawlJson(out.crawl) };
  },
});

const resultsQuery = z.strictObject({
  cursor: z
    .string()
    .max(200)
    .optional()
    .describe('From the previous answer’s `nextCursor`; omit to start at the first page.'),
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('Pages per answer (also capped at about 10 MB).'),
});

export const crawlResultsRow = capability({
  name: 'crawl.results',
  method: 'get',
  path: '/v1/crawl/{id}/results',
  tag: 'Crawl',
  summary: 'Pages a crawl delivered',
  description:
    'Delivered pages, oldest first, a page of results at a time; resume with `cursor`. Answers while the crawl runs and after it is cancelled. `nextCursor` is null once the crawl is settled and every page has been read. Never billed.',
  backend: 'crawl',
  bills: [],
  mcpTool: 'service_crawl_results',
  request: { params, query: resultsQuery },
  response: z.object({
    success: z.literal(true),
    status: crawlObject.shape.status,
    data: z.array(documentSchema.extend({ depth: z.number().int() })),
    nextCursor: z.string().nullable(),
  }),
  errors: ['not_found'],
  handler: async ({ principal, upstreams, signal }, { params: p, query: q }) => {
    const out = await upstreams.crawl.crawlResults(
      { workspaceId: principal.workspaceId, crawlId: p.id, cursor: q.cursor ?? '', pageSize: q.limit },
      { signal },
    );
    const formats = formatNames(out.formats);
    return {
      success: true as const,
      status: (out.status || 'running') as 'running' | 'cancelled' | 'settled',
      data: out.pages.map((page) => ({ ...toDocumentJson(page.document, formats), depth: page.depth })),
      nextCursor: out.nextCursor || null,
    };
  },
});

export const crawlCancelRow = capability({
  name: 'crawl.cancel',
  method: 'post',
  path: '/v1/crawl/{id}/cancel',
  tag: 'Crawl',
  summary: 'Cancel a crawl',
  description:
    'Stops taking new pages. Pages already delivered stay available from `crawl.results` and stay billed; pages in flight finish; the unused part of the hold is released. Cancelling a settled crawl changes nothing.',
  backend: 'crawl',
  bills: [],
  mcpTool: 'service_crawl_cancel',
  request: { params },
  response: z.object({ success: z.literal(true), crawl: crawlObject }),
  errors: ['not_found'],
  handler: async ({ principal, upstreams, signal }, { params: p }) => {
    const out = await upstreams.crawl.cancelCrawl({ workspaceId: principal.workspaceId, crawlId: p.id }, { signal });
    return { success: true as const, crawl: toCrawlJson(out.crawl) };
  },
});
