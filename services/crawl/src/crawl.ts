// Builds the crawl service from its config, database and NATS link: the one
// place the pipeline, stores, clients, frontier, worker, handlers and jobs are
// wired, shared by service.ts and the tests.

import { DocumentPool } from '@wap/documents';
import { Consumer, type NatsLink, Publisher } from '@wap/events';
import { ExtractPool, warmUp } from '@wap/extract';
import { createFetchAgent } from '@wap/fetch';
import type { Logger } from '@wap/log';
import { AllowList } from '@wap/netguard';
import { browser, ledger } from '@wap/proto';
import { createClient } from '@wap/rpc';
import { DrawnHolds } from './clients/drawn-holds.js';
import { modelFormatsClient } from './clients/model-formats.js';
import { searchProvider } from './clients/search-providers.js';
import type { CrawlConfig } from './config.js';
import { cacheSweeper } from './jobs/cache-sweep.js';
import { crawlSweeper } from './jobs/crawl-sweep.js';
import { CrawlWorker } from './jobs/crawl-worker.js';
import { Frontier, type FrontierMessage } from './jobs/frontier.js';
import { webhookSender } from './jobs/webhook-sender.js';
import { warmSitemapParser } from './pipeline/site-files.js';
import { type CrawlDeps, crawlService } from './rpc/index.js';
import { CrawlStore } from './store/crawls.js';
import type { CrawlDatabase } from './store/database.js';
import { HostStore } from './store/hosts.js';
import { PageCache } from './store/page-cache.js';
import { PageStore } from './store/pages.js';
import { SearchIndex } from './store/search-index.js';
import { UrlStore } from './store/urls.js';
import { WebhookStore } from './store/webhooks.js';

/** How often a replica looks for crawl webhooks due: a crawl's end reaches its receiver within about this. */
const WEBHOOK_POLL_MS = 1_000;

export function openCrawl(config: CrawlConfig, db: CrawlDatabase, nats: NatsLink, log: Logger) {
  const allow = AllowList.parse(config.EGRESS_ALLOW);
  if (!allow.empty) log.warn({ allow: allow.cidrs }, 'fetch allow-list is set: for local test sites only');
  const agent = createFetchAgent({ allow });
  // Compiled now rather than on the first user's pages (about 100 ms of a fresh process's first page).
  const warmMs = warmUp();
  warmSitemapParser();
  log.debug({ warmMs: Math.round(warmMs) }, 'extraction warmed up');
  const extractor = config.EXTRACT_THREADS > 0 ? new ExtractPool({ threads: config.EXTRACT_THREADS }) : undefined;
  // Documents always go to threads of their own: bounded in time and memory, never on the event loop.
  const documents = new DocumentPool({
    threads: config.DOCUMENT_THREADS,
    memoryBytes: config.DOCUMENT_MEMORY_MB * 2 ** 20,
    idleMs: config.DOCUMENT_IDLE,
  });
  const token = config.SERVICE_TOKEN;
  const ledgerClient = createClient(ledger.LedgerService, config.BILLING_LEDGER_ADDR, { token });
  const browserClient = config.BROWSER_HOST_ADDR
    ? createClient(browser.BrowserService, config.BROWSER_HOST_ADDR, { defaultTimeoutMs: 60_000, token })
    : undefined;
  const modelFormats = modelFormatsClient(config.AGENT_ADDR, token);
  const crawls = new CrawlStore(db);
  const urls = new UrlStore(db);
  const hosts = new HostStore(db);
  const pages = new PageStore(db);
  const cache = new PageCache(db);
  const index = new SearchIndex(db);
  const frontier = new Frontier(new Publisher(nats.nc), config.NATS_NAMESPACE);
  const pipeline = {
    agent,
    allow,
    extractor,
    browser: browserClient,
    ledger: ledgerClient,
    log,
    documents,
    documentMaxBytes: config.DOCUMENT_MAX_MB * 2 ** 20,
    documentMaxPages: config.DOCUMENT_MAX_PAGES,
  };
  const worker = new CrawlWorker({
    ...pipeline,
    modelFormats,
    crawls,
    urls,
    hosts,
    frontier,
    ackWaitMs: config.CRAWL_ACK_WAIT,
    maxAttempts: config.CRAWL_MAX_ATTEMPTS,
    stallMs: config.CRAWL_STALL,
  });
  const deps: CrawlDeps = {
    ...pipeline,
    holds: new DrawnHolds(ledgerClient, { pages: config.SCRAPE_HOLD_AHEAD }, log),
    crawls,
    pages,
    cache,
    index,
    provider: searchProvider(config, index, log),
    frontier,
    worker,
    retentionMs: config.CRAWL_RETENTION,
    modelFormats,
    ...(config.CRAWL_KEY && { webhookKey: config.CRAWL_KEY }),
  };
  const consumer = new Consumer<FrontierMessage>(nats.nc, {
    stream: frontier.stream,
    consumer: frontier.consumer,
    concurrency: config.CRAWL_CONCURRENCY,
    retryDelayMs: 1_000,
    log,
    handle: worker.handle,
  });
  const jobs = [
    crawlSweeper(
      { crawls, urls, worker, frontier, log },
      {
        intervalMs: config.CRAWL_SWEEP,
        idleMs: config.CRAWL_IDLE,
        stallMs: config.CRAWL_STALL,
        retentionMs: config.CRAWL_RETENTION,
      },
    ),
    cacheSweeper(cache, log, { intervalMs: config.PAGE_CACHE_SWEEP }),
    webhookSender({ webhooks: new WebhookStore(db), agent, log, key: config.CRAWL_KEY }, WEBHOOK_POLL_MS),
  ];
  return {
    deps,
    impl: crawlService(deps),
    /** Takes frontier work and starts the sweeps. */
    start: async () => {
      await consumer.start();
      for (const job of jobs) job.start();
    },
    /** Stops taking work, lets what is in flight end, and closes the clients. */
    stop: async () => {
      await Promise.all(jobs.map((job) => job.stop()));
      worker.stop();
      await consumer.stop();
      ledgerClient.close();
      browserClient?.close();
      modelFormats?.close();
      await agent.close();
      await extractor?.close();
      await documents.close();
    },
  };
}
