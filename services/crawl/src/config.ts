import { availableParallelism } from 'node:os';
import { baseEnv } from '@wap/service';
import { z } from 'zod';

export const env = baseEnv(50052).extend({
  /** The ledger every billable page is held and settled on. */
  BILLING_LEDGER_ADDR: z.string(),
  /** The browser host that renders pages; without it only the fetch engine runs. */
  BROWSER_HOST_ADDR: z.string().optional(),
  /**
   * CIDR ranges the fetch guard lets through, for local test sites only.
   * Empty in production: private, loopback and metadata addresses are refused.
   */
  EGRESS_ALLOW: z.string().default(''),
  /**
   * Threads that extract pages off the event loop; 0 extracts on it. Default:
   * one per core but one, and none on two cores or fewer (measured on the crawl
   * bench: with one thread on two cores, the crawl was 6% slower, the second
   * core being busy with Postgres and NATS).
   */
  EXTRACT_THREADS: z.coerce
    .number()
    .int()
    .min(0)
    .max(64)
    .default(availableParallelism() > 2 ? availableParallelism() - 1 : 0),
  /** Frontier messages this process handles at once. */
  CRAWL_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /** A frontier message not acked within this time goes to another worker (a worker that died). */
  CRAWL_ACK_WAIT_MS: z.coerce.number().int().min(1_000).default(30_000),
  /** How often this worker looks for crawls that stopped moving. */
  CRAWL_SWEEP_MS: z.coerce.number().int().min(100).default(10_000),
  /** A crawl with no page delivered or failed for this long has its pending URLs queued again. */
  CRAWL_IDLE_MS: z.coerce.number().int().min(1_000).default(120_000),
  /**
   * A crawl with no page delivered or failed for this long is settled as
   * `expired` and its hold released (0: only its 12-hour deadline ends it).
   */
  CRAWL_STALL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(30 * 60_000),
  /**
   * Tries of a URL that may end in an error not the page's own (the browser
   * host, the ledger or the database failing) before the URL fails with it.
   */
  CRAWL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(8),
  /** How long a settled crawl and its pages are kept (default 7 days); then they are gone (404). */
  CRAWL_RETENTION_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(7 * 86_400_000),
  /** How often cached pages past a week are deleted (a cached page only serves a request's `maxAge`). */
  PAGE_CACHE_SWEEP_MS: z.coerce.number().int().min(1_000).default(3_600_000),
  /** Where search goes: the built-in index over this workspace's pages, SearXNG or Brave. */
  SEARCH_PROVIDER: z.enum(['builtin', 'searxng', 'brave']).default('builtin'),
  /** SearXNG's base URL (its JSON format must be enabled). */
  SEARXNG_URL: z.url().optional(),
  /** Brave Search API subscription token. */
  BRAVE_API_KEY: z.string().optional(),
  /** Brave's endpoint; changed only to point tests at a local stand-in. */
  BRAVE_URL: z.url().default('https://api.search.brave.com/res/v1/web/search'),
});

export type CrawlConfig = z.infer<typeof env>;
