import { create } from '@bufbuild/protobuf';
import { crawl } from '@wap/proto';
import { z } from 'zod';
import { firecrawlBookkeeping } from '../bookkeeping.js';
import { capability } from '../types.js';
import {
  crawlLink,
  crawlObject,
  firecrawlStatus,
  firecrawlStatusField,
  pageJson,
  pagesJson,
  toCrawlJson,
} from './crawl-object.js';
import { pageUrl, scrapeOptions, toScrapeOptions } from './scrape.js';
import { toWebhook, webhookField, webhookSecretField } from './webhook.js';

/** The default `limit`: a crawl holds `limit` credits while it runs, so the default stays modest. */
export const DEFAULT_CRAWL_LIMIT = 100;
export const MAX_CRAWL_LIMIT = 10_000;

/** The `sitemap` field's words as the crawl service takes them (crawl and map). */
export const SITEMAP = {
  include: crawl.SitemapMode.INCLUDE,
  skip: crawl.SitemapMode.SKIP,
  only: crawl.SitemapMode.ONLY,
};

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
  webhook: webhookField,
  ...firecrawlBookkeeping,
});

const params = z.strictObject({ id: z.string().min(1).max(100).describe('The crawl id.') });

/** Pages in one crawl.get answer: as many as crawl.results gives at most, so Firecrawl's clients ask few times. */
const PAGES_PER_STATUS = 100;
const statusQuery = z.strictObject({
  cursor: z
    .string()
    .max(200)
    .optional()
    .describe('From `next`: `data` then holds the delivered pages after it, as crawl.results answers them.'),
});

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
  response: z.object({
    success: z.literal(true),
    id: z.string(),
    url: z.string().describe('Where the crawl answers (`GET /v1/crawl/{id}`), as Firecrawl answers it.'),
    webhookSecret: webhookSecretField,
    crawl: crawlObject,
  }),
  errors: ['page_unreachable', 'quota_exceeded', 'capability_unavailable'],
  handler: async ({ principal, upstreams, operationId, signal, publicUrl }, { body: b }) => {
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
        webhook: toWebhook(b.webhook),
      },
      { signal },
    );
    const id = out.crawl?.id ?? '';
    return {
      success: true as const,
      id,
      url: crawlLink(publicUrl, id),
      ...(out.webhookSecret && { webhookSecret: out.webhookSecret }),
      crawl: toCrawlJson(out.crawl),
    };
  },
});

export const crawlGetRow = capability({
  name: 'crawl.get',
  method: 'get',
  path: '/v1/crawl/{id}',
  tag: 'Crawl',
  summary: 'Status of a crawl',
  description:
    'Status, pages discovered, completed, failed and skipped, the spend so far and per-URL failures in `crawl`. Beside it, the fields Firecrawl’s clients poll for (`status` in their words, `total`, `completed`, `creditsUsed`, `expiresAt`, `data`, `next`). While the crawl runs this is a plain row read: safe to poll, never billed. Once it stopped, `data` holds its first delivered pages and `next` links the rest (docs/migrating-from-firecrawl.md).',
  backend: 'crawl',
  bills: [],
  mcpTool: 'service_crawl_get',
  request: { params, query: statusQuery },
  response: z.object({
    success: z.literal(true),
    crawl: crawlObject,
    status: firecrawlStatusField.describe(
      "Firecrawl's word for where the crawl is, for its clients: `scraping` while `crawl.status` is running; `completed` once settled with outcome completed or limit_reached; `cancelled` once cancelled; `failed` when settled failed or expired. The crawl's own state is `crawl.status`.",
    ),
    total: z.number().int().describe('URLs fetched or still to fetch: `crawl.discovered` − `crawl.skipped`.'),
    completed: z.number().int().describe('As `crawl.completed`: pages delivered.'),
    creditsUsed: z.number().nonnegative().describe('As `crawl.usage.credits`.'),
    expiresAt: crawlObject.shape.expiresAt.describe('As `crawl.expiresAt`.'),
    data: z
      .array(pageJson)
      .describe(
        `Once the crawl stopped running, or with \`cursor\`: up to ${PAGES_PER_STATUS} delivered pages (about 10 MB at most), oldest first, as crawl.results answers them. Empty while it runs: read pages as they come from crawl.results.`,
      ),
    next: z
      .string()
      .optional()
      .describe('The URL of the pages after `data` (this route with `cursor`); absent after the last.'),
  }),
  alsoAt: [
    {
      method: 'get',
      path: '/v1/batch/scrape/{id}',
      description:
        'The status of a batch scrape (a batch is a crawl of its pages alone: POST /v1/batch/scrape), as Firecrawl’s clients ask for it. Same input, answer, billing (free) and errors.',
    },
  ],
  errors: ['not_found'],
  handler: async ({ principal, upstreams, signal, publicUrl }, { params: p, query: q }) => {
    const ref = { workspaceId: principal.workspaceId, crawlId: p.id };
    const c = toCrawlJson((await upstreams.crawl.getCrawl(ref, { signal })).crawl);
    // A poll of a running crawl stays a row read; its pages are read once it stopped, or when `next` is followed.
    const page =
      q.cursor !== undefined || c.status !== 'running'
        ? await upstreams.crawl.crawlResults({ ...ref, cursor: q.cursor ?? '', pageSize: PAGES_PER_STATUS }, { signal })
        : undefined;
    return {
      success: true as const,
      crawl: c,
      status: firecrawlStatus(c),
      total: c.discovered - c.skipped,
      completed: c.completed,
      creditsUsed: c.usage.credits,
      expiresAt: c.expiresAt,
      data: page ? pagesJson(page) : [],
      ...(page?.nextCursor && {
        next: `${crawlLink(publicUrl, p.id)}?cursor=${encodeURIComponent(page.nextCursor)}`,
      }),
    };
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
    data: z.array(pageJson),
    nextCursor: z.string().nullable(),
  }),
  alsoAt: [
    {
      method: 'get',
      path: '/v1/batch/scrape/{id}/results',
      description: 'The pages of a batch scrape, as for a crawl. Same input, answer, billing (free) and errors.',
    },
  ],
  errors: ['not_found'],
  handler: async ({ principal, upstreams, signal }, { params: p, query: q }) => {
    const out = await upstreams.crawl.crawlResults(
      { workspaceId: principal.workspaceId, crawlId: p.id, cursor: q.cursor ?? '', pageSize: q.limit },
      { signal },
    );
    return {
      success: true as const,
      status: (out.status || 'running') as 'running' | 'cancelled' | 'settled',
      data: pagesJson(out),
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
    'Stops taking new pages. Pages already delivered stay available from `crawl.results` and stay billed; pages in flight finish; the unused part of the hold is released. Cancelling a settled crawl changes nothing. `DELETE /v1/crawl/{id}` is the same call, as Firecrawl’s clients send it.',
  backend: 'crawl',
  bills: [],
  mcpTool: 'service_crawl_cancel',
  alsoAt: [
    {
      method: 'delete',
      path: '/v1/crawl/{id}',
      description:
        'The Firecrawl-compatible form of `POST /v1/crawl/{id}/cancel`, the request Firecrawl’s clients send to cancel (`cancelCrawl`, `cancel_crawl`): it cancels the crawl, it does not delete it or its pages. Same input, answer (`status` is the field those clients read), billing (free) and errors.',
    },
    {
      method: 'post',
      path: '/v1/batch/scrape/{id}/cancel',
      description: 'Cancels a batch scrape, as a crawl is cancelled. Same input, answer, billing (free) and errors.',
      operationId: 'crawl.cancel.batch',
    },
    {
      method: 'delete',
      path: '/v1/batch/scrape/{id}',
      description:
        'Cancels a batch scrape, the request Firecrawl’s clients send (`cancelBatchScrape`, `cancel_batch_scrape`). Same input, answer, billing (free) and errors.',
      operationId: 'crawl.cancel.batch.delete',
    },
  ],
  request: { params },
  response: z.object({
    success: z.literal(true),
    crawl: crawlObject,
    status: firecrawlStatusField.describe(
      "Firecrawl's word for where the crawl is now, as crawl.get answers it: `cancelled`, or how a crawl that had already settled ended. The crawl's own state is `crawl.status`.",
    ),
  }),
  errors: ['not_found'],
  handler: async ({ principal, upstreams, signal }, { params: p }) => {
    const out = await upstreams.crawl.cancelCrawl({ workspaceId: principal.workspaceId, crawlId: p.id }, { signal });
    const c = toCrawlJson(out.crawl);
    return { success: true as const, crawl: c, status: firecrawlStatus(c) };
  },
});

export const crawlListRow = capability({
  name: 'crawl.list',
  method: 'get',
  path: '/v1/crawl',
  tag: 'Crawl',
  summary: 'Crawls still running',
  description:
    'The workspace’s crawls and batch scrapes that have not settled yet (running, or cancelled and finishing their pages in flight), newest first, at most 100; each as `crawl.get` answers it, without failures. A plain read: never billed.',
  backend: 'crawl',
  bills: [],
  mcpTool: 'service_crawl_list',
  request: {},
  response: z.object({
    success: z.literal(true),
    workspaceId: z.string().describe('The workspace the crawls belong to (Firecrawl’s `teamId`).'),
    crawls: z.array(crawlObject),
  }),
  errors: [],
  handler: async ({ principal, upstreams, signal }) => {
    const out = await upstreams.crawl.listCrawls({ workspaceId: principal.workspaceId }, { signal });
    return {
      success: true as const,
      workspaceId: principal.workspaceId,
      crawls: out.crawls.map((c) => toCrawlJson(c)),
    };
  },
});
