import { availableParallelism } from 'node:os';
import { duration } from '@wap/config';
import { baseEnv, sharedEnv } from '@wap/service';
import { z } from 'zod';

/** Every variable the service reads; each .describe() is its meaning in docs/settings.md. */
export const env = baseEnv(50052).extend({
  BILLING_LEDGER_ADDR: sharedEnv.BILLING_LEDGER_ADDR,
  BROWSER_HOST_ADDR: sharedEnv.BROWSER_HOST_ADDR.optional(),
  AGENT_ADDR: sharedEnv.AGENT_ADDR.optional(),
  EGRESS_ALLOW: sharedEnv.EGRESS_ALLOW,
  CRAWL_KEY: z
    .string()
    .min(32)
    .optional()
    .describe(
      "Secret (32+ characters) the crawl service seals crawls' webhook URLs, headers and signing secrets with; unset, a crawl or batch with a webhook is refused. `make up` derives one per machine.",
    ),
  EXTRACT_THREADS: z.coerce
    .number()
    .int()
    .min(0)
    .max(64)
    // None on two cores or fewer: on the crawl bench, one thread on two cores
    // made the crawl 6% slower, the second core being busy with Postgres and NATS.
    .default(availableParallelism() > 2 ? availableParallelism() - 1 : 0)
    .meta({
      description: 'Threads that extract pages off the event loop; 0 extracts on it.',
      shownDefault: 'cores - 1 (0 on 2 cores or fewer)',
    }),
  DOCUMENT_THREADS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(1)
    .describe('Documents (PDF, DOCX, XLSX, CSV) read at once, each on a thread of its own (docs/api.md, "Documents").'),
  DOCUMENT_MEMORY_MB: z.coerce
    .number()
    .int()
    .min(64)
    .max(16_384)
    .default(512)
    .describe(
      'Memory (MB, heap and unpacked buffers) one document may take while it is read; past it the document is refused as too_large.',
    ),
  DOCUMENT_MAX_MB: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_024)
    .default(50)
    .describe('The largest document fetched (MB); a larger one is page_unreachable, reason too_large.'),
  DOCUMENT_MAX_PAGES: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(1_000)
    .describe("The most pages of a PDF read (and billed), whatever the request's maxPages."),
  DOCUMENT_IDLE: duration({ min: '1s' })
    .prefault('5m')
    .describe('A document thread idle this long ends; the next document starts (and warms) a new one.'),
  CRAWL_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(256)
    .default(16)
    .describe('Frontier messages one crawl process handles at once.'),
  CRAWL_ACK_WAIT: duration({ min: '1s' })
    .prefault('30s')
    .describe('A frontier message not acked in this time (its worker died) goes to another worker.'),
  CRAWL_SWEEP: duration({ min: '100ms' })
    .prefault('10s')
    .describe('How often a worker looks for crawls that stopped moving.'),
  CRAWL_IDLE: duration({ min: '1s' })
    .prefault('2m')
    .describe('A crawl with no page delivered or failed for this long has its pending URLs queued again.'),
  CRAWL_STALL: duration()
    .prefault('30m')
    .describe(
      'A crawl with no page delivered or failed for this long ends as expired, its hold voided (0: only its 12-hour deadline ends it).',
    ),
  CRAWL_MAX_ATTEMPTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(8)
    .describe(
      "Tries of a URL whose failure is not the page's own (the browser host, the ledger or the database failing) before it is recorded failed (dead-lettered).",
    ),
  SCRAPE_HOLD_AHEAD: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000)
    .default(32)
    .describe(
      'The most page loads held ahead for a workspace with more than one scrape under way (four per scrape under way), drawn down by its scrapes, each settled as its own call (decision 0031); 0 holds every scrape alone.',
    ),
  CRAWL_RETENTION: duration({ min: '1s' })
    .prefault('7d')
    .describe('How long a settled crawl and its pages are kept (then 404).'),
  PAGE_CACHE_SWEEP: duration({ min: '1s' })
    .prefault('1h')
    .describe("How often cached pages older than a week are deleted (a cached page only serves a request's maxAge)."),
  SEARCH_PROVIDER: z
    .enum(['builtin', 'searxng', 'brave'])
    .default('builtin')
    .describe("builtin (this workspace's pages), searxng or brave."),
  SEARXNG_URL: z.url().optional().describe("SearXNG's base URL (its JSON format enabled)."),
  BRAVE_API_KEY: z.string().optional().describe('Brave Search API subscription token.'),
  BRAVE_URL: z
    .url()
    .default('https://api.search.brave.com/res/v1/web/search')
    .describe("Brave's endpoint; changed only for a local stand-in."),
});

export type CrawlConfig = z.infer<typeof env>;
