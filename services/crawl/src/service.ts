// The crawl service: scrape, crawl and search, with the page pipeline.
import { Consumer, ensureStreams, Publisher } from '@wap/events';
import { ExtractPool, warmUp } from '@wap/extract';
import { createFetchAgent } from '@wap/fetch';
import { AllowList } from '@wap/netguard';
import { browser, crawl, ledger } from '@wap/proto';
import { addService, createClient } from '@wap/rpc';
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { warmSitemapParser } from './crawl/site-files.js';
import { CrawlStore } from './crawl/store.js';
import { CrawlWorker, Frontier, type FrontierMessage } from './crawl/worker.js';
import { crawlRpcs } from './rpc/crawl.js';
import { scrapeRpc } from './rpc/scrape.js';
import { searchRpc } from './rpc/search.js';
import { searchProvider } from './search/providers.js';
import { CrawlDatabase } from './store/database.js';
import { PageCache } from './store/page-cache.js';
import { SearchIndex } from './store/search-index.js';

const CACHE_KEEP_MS = 7 * 86_400_000;

export const definition: ServiceDefinition<typeof env, CrawlDatabase> = {
  name: 'crawl',
  env,
  openDatabase: (url) => new CrawlDatabase(url),
  start: async ({ config, log, db, server, nats }) => {
    const allow = AllowList.parse(config.EGRESS_ALLOW);
    if (!allow.empty) log.warn({ allow: allow.cidrs }, 'fetch allow-list is set: for local test sites only');
    const agent = createFetchAgent({ allow });
    // Compiled now rather than on the first user's pages (about 100 ms of a fresh process's first page).
    const warmMs = warmUp();
    warmSitemapParser();
    log.debug({ warmMs: Math.round(warmMs) }, 'extraction warmed up');
    const extractor = config.EXTRACT_THREADS > 0 ? new ExtractPool({ threads: config.EXTRACT_THREADS }) : undefined;
    const ledgerClient = createClient(ledger.LedgerService, config.BILLING_LEDGER_ADDR);
    const browserClient = config.BROWSER_HOST_ADDR
      ? createClient(browser.BrowserService, config.BROWSER_HOST_ADDR, { defaultTimeoutMs: 60_000 })
      : undefined;
    const cache = new PageCache(db);
    const index = new SearchIndex(db);
    const store = new CrawlStore(db);
    const frontier = new Frontier(new Publisher(nats.nc), config.NATS_NAMESPACE);

    // The frontier: one work queue every crawl worker shares (docs/crawl.md).
    await ensureStreams(
      nats.nc,
      [{ name: frontier.stream, subjects: [frontier.subjects], retention: 'workqueue', maxAgeMs: 24 * 3_600_000 }],
      [{ stream: frontier.stream, name: frontier.consumer, ackWaitMs: config.CRAWL_ACK_WAIT_MS, maxDeliver: -1 }],
    );
    const worker = new CrawlWorker({
      agent,
      allow,
      extractor,
      browser: browserClient,
      store,
      ledger: ledgerClient,
      frontier,
      log,
      ackWaitMs: config.CRAWL_ACK_WAIT_MS,
      maxAttempts: config.CRAWL_MAX_ATTEMPTS,
      stallMs: config.CRAWL_STALL_MS,
    });
    const consumer = new Consumer<FrontierMessage>(nats.nc, {
      stream: frontier.stream,
      consumer: frontier.consumer,
      concurrency: config.CRAWL_CONCURRENCY,
      retryDelayMs: 1_000,
      log,
      handle: worker.handle,
    });
    await consumer.start();

    const provider = searchProvider(config, index, log);
    addService(
      server,
      crawl.CrawlService,
      {
        scrape: scrapeRpc({ agent, allow, browser: browserClient, extractor, ledger: ledgerClient, cache, log }),
        ...crawlRpcs({ store, ledger: ledgerClient, frontier, worker, allow }),
        search: searchRpc({
          agent,
          allow,
          browser: browserClient,
          extractor,
          ledger: ledgerClient,
          index,
          provider,
          log,
        }),
      },
      log,
    );

    // Crawls that stopped moving (a lost message, a worker gone with its lease)
    // are queued again, and settled as expired past their deadline or after
    // CRAWL_STALL_MS without progress; every worker sweeps, the store keeps it safe.
    const sweepCrawls = async () => {
      const purged = await store.purgeSettledBefore(new Date(Date.now() - config.CRAWL_RETENTION_MS), 100);
      if (purged > 0) log.info({ crawls: purged }, 'settled crawls past their retention deleted');
      for (const id of await store.stale(config.CRAWL_IDLE_MS, 20, config.CRAWL_STALL_MS)) {
        // One crawl that fails here (its ledger call, say) does not hold up the others.
        try {
          await worker.finishIfDone(id, { resume: true });
          const urls = await store.requeue(id);
          if (urls.length > 0) {
            log.warn({ crawlId: id, urls: urls.length }, 'crawl made no progress; queueing its pending URLs again');
            await frontier.publish(id, urls, `:r${Date.now()}`);
          }
        } catch (err) {
          log.warn({ err, crawlId: id }, 'crawl sweep failed for this crawl');
        }
      }
    };
    const crawlSweep = setInterval(() => {
      sweepCrawls().catch((err) => log.warn({ err }, 'crawl sweep failed'));
    }, config.CRAWL_SWEEP_MS);
    crawlSweep.unref();
    const cacheSweep = setInterval(() => {
      cache.expire(CACHE_KEEP_MS).catch((err) => log.warn({ err }, 'page cache sweep failed'));
    }, 3_600_000);
    cacheSweep.unref();
    return {
      stop: async () => {
        clearInterval(cacheSweep);
        clearInterval(crawlSweep);
        worker.stop();
        await consumer.stop();
        ledgerClient.close();
        browserClient?.close();
        await agent.close();
        await extractor?.close();
      },
    };
  },
};
