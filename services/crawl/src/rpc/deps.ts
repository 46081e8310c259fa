// What the CrawlService handlers share: built once by the composition root (crawl-service.ts).
import type { LedgerClient } from '@wap/billing';
import type { Logger } from '@wap/log';
import type { ExtractClient } from '../clients/model-formats.js';
import type { SearchProvider } from '../clients/search-providers.js';
import type { CrawlWorker } from '../jobs/crawl-worker.js';
import type { Frontier } from '../jobs/frontier.js';
import type { PipelineDeps } from '../pipeline/scrape.js';
import type { CrawlStore } from '../store/crawls.js';
import type { PageCache } from '../store/page-cache.js';
import type { PageStore } from '../store/pages.js';
import type { SearchIndex } from '../store/search-index.js';

export interface CrawlDeps extends PipelineDeps {
  ledger: LedgerClient;
  log: Logger;
  crawls: CrawlStore;
  /** Delivered pages and failures, as CrawlResults and the crawl's view read them back. */
  pages: PageStore;
  /** The page cache; every fetched page also goes into the workspace's built-in search index. */
  cache: PageCache;
  index: SearchIndex;
  provider: SearchProvider;
  frontier: Frontier;
  worker: CrawlWorker;
  /** The agent service's Extract, which answers the model formats (`json`, `summary`); unset without AGENT_ADDR. */
  modelFormats?: ExtractClient;
  /** How long a crawl and its pages are kept after it ended (CRAWL_RETENTION). */
  retentionMs: number;
}
