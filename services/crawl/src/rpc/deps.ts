// What the CrawlService handlers share: built once by the composition root (crawl.ts).
import type { LedgerClient } from '@wap/billing';
import type { Logger } from '@wap/log';
import type { crawl } from '@wap/proto';
import type { DrawnHolds } from '../clients/drawn-holds.js';
import type { ExtractClient } from '../clients/model-formats.js';
import type { SearchProvider } from '../clients/search-providers.js';
import type { PipelineDeps } from '../pipeline/scrape.js';
import type { CrawlRow, CrawlStore } from '../store/crawls.js';
import type { PageCache } from '../store/page-cache.js';
import type { PageStore } from '../store/pages.js';
import type { SearchIndex } from '../store/search-index.js';
import type { QueuedUrl } from '../store/urls.js';

export interface CrawlDeps extends PipelineDeps {
  ledger: LedgerClient;
  /** A scrape's page, drawn from a hold taken ahead while its workspace is busy (decision 0031). */
  holds: Pick<DrawnHolds, 'billed'>;
  log: Logger;
  crawls: CrawlStore;
  /** Delivered pages and failures, as CrawlResults and the crawl's view read them back. */
  pages: PageStore;
  /** The page cache; every fetched page also goes into the workspace's built-in search index. */
  cache: PageCache;
  index: SearchIndex;
  provider: SearchProvider;
  /** Queues a crawl's URLs for the workers (jobs/frontier.ts). */
  frontier: { publish(crawlId: string, urls: readonly QueuedUrl[]): Promise<void> };
  /** What the handlers ask of the crawl worker (jobs/crawl-worker.ts). */
  worker: {
    /** The scrape options of a crawl's pages. */
    scrapeOptionsOf(row: CrawlRow): crawl.ScrapeOptions;
    /** Ends a crawl none of whose pages is left. */
    finishIfDone(crawlId: string): Promise<void>;
  };
  /** The agent service's Extract, which answers the model formats (`json`, `summary`); unset without AGENT_ADDR. */
  modelFormats?: ExtractClient;
  /** How long a crawl and its pages are kept after it ended (CRAWL_RETENTION). */
  retentionMs: number;
  /** The key crawls' webhooks are sealed with (CRAWL_KEY); unset, a crawl with a webhook is refused. */
  webhookKey?: string;
}
