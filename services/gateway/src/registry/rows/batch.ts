import { create } from '@bufbuild/protobuf';
import { checkUrl } from '@wap/netguard';
import { crawl } from '@wap/proto';
import { z } from 'zod';
import { firecrawlBookkeeping } from '../bookkeeping.js';
import { capability } from '../types.js';
import { crawlObject, toCrawlJson } from './crawl-object.js';
import { scrapeOptions, toScrapeOptions } from './scrape.js';
import { toWebhook, webhookField, webhookSecretField } from './webhook.js';

/** Pages one batch takes, and the longest URL of one: 2 MiB of URLs at most. */
export const MAX_BATCH_URLS = 1_000;
const MAX_BATCH_URL_CHARS = 2_048;

const body = scrapeOptions.extend({
  urls: z
    .array(z.string().max(MAX_BATCH_URL_CHARS))
    .min(1)
    .max(MAX_BATCH_URLS)
    .describe(
      `The pages to scrape (http or https, ${MAX_BATCH_URL_CHARS} characters at most each); the same page twice is scraped once.`,
    ),
  ignoreInvalidURLs: z
    .boolean()
    .default(false)
    .describe('Leave out URLs that cannot be scraped (listed in `invalidURLs`) rather than refuse the batch.'),
  maxConcurrency: z.number().int().min(1).max(20).default(4).describe('Pages of one host fetched at once.'),
  webhook: webhookField,
  appendToId: z
    .uuid()
    .optional()
    .describe(
      'Add the pages to this running batch of the workspace instead of starting one (Firecrawl’s `appendToId`): scraped with its options (the scrape options sent must be the same), held for with a hold of their own, answered with its id. A batch that ended or was cancelled is refused (`400`).',
    ),
  ...firecrawlBookkeeping,
});

/** Whether a URL may be asked for at all (http or https, a public host by rule); the fetch checks its address again. */
function scrapable(url: string): boolean {
  try {
    const u = checkUrl(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch (err) {
    // A literal private address is refused when fetched, as one behind a name is: it fails as its page.
    return (err as { code?: string }).code === 'page_unreachable';
  }
}

/** Where a batch answers: the crawl it is, read at /v1/batch/scrape/{id}. */
export const batchLink = (publicUrl: string, id: string) =>
  `${publicUrl.replace(/\/+$/, '')}/v1/batch/scrape/${encodeURIComponent(id)}`;

export const batchScrapeRow = capability({
  name: 'batch.scrape',
  method: 'post',
  path: '/v1/batch/scrape',
  tag: 'Crawl',
  summary: 'Scrape many pages as one job',
  description:
    'A crawl of the given pages alone: no link followed, no sitemap read, robots.txt not read (as for a scrape). Returns at once with the job’s id; its status, pages, errors and cancel are the crawl’s routes (`GET /v1/batch/scrape/{id}` is `GET /v1/crawl/{id}`). 1 credit per page delivered, as a scrape; a credit per distinct page is held while it runs. With `Idempotency-Key`, a retried start is the same job.',
  openWorld: true,
  backend: 'crawl',
  bills: ['page_load'],
  mcpTool: 'service_batch_scrape',
  request: { body },
  // 1,000 URLs of 2,048 characters and the scrape options' bounded fields stay under this.
  bodyBytes: 4 * 1024 * 1024,
  example: { urls: ['https://example.com/a', 'https://example.com/b'], formats: ['markdown'] },
  response: z.object({
    success: z.literal(true),
    id: z.string(),
    url: z.string().describe('Where the batch answers (`GET /v1/batch/scrape/{id}`).'),
    invalidURLs: z.array(z.string()).optional().describe('With `ignoreInvalidURLs`: the URLs left out.'),
    webhookSecret: webhookSecretField,
    crawl: crawlObject,
  }),
  errors: ['page_unreachable', 'quota_exceeded', 'capability_unavailable', 'not_found'],
  handler: async ({ principal, upstreams, operationId, signal, publicUrl }, { body: b }) => {
    const { urls, ignoreInvalidURLs, maxConcurrency, webhook, appendToId, origin: _o, integration: _i, ...options } = b;
    const invalid = ignoreInvalidURLs ? urls.filter((u) => !scrapable(u)) : [];
    const kept = urls.filter((u) => !invalid.includes(u));
    const out = await upstreams.crawl.startCrawl(
      {
        workspaceId: principal.workspaceId,
        requestId: operationId,
        urls: kept.length > 0 ? kept : urls,
        options: create(crawl.CrawlOptionsSchema, {
          maxConcurrencyPerHost: maxConcurrency,
          scrapeOptions: toScrapeOptions(options),
        }),
        webhook: toWebhook(webhook),
        appendToId: appendToId ?? '',
      },
      { signal },
    );
    const id = out.crawl?.id ?? '';
    return {
      success: true as const,
      id,
      url: batchLink(publicUrl, id),
      ...(ignoreInvalidURLs && { invalidURLs: invalid }),
      ...(out.webhookSecret && { webhookSecret: out.webhookSecret }),
      crawl: toCrawlJson(out.crawl),
    };
  },
});
