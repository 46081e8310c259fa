// The crawl service: scrape, crawl and search, with the page pipeline.
import { createPrismaAdapter } from '@wap/db';
import { createFetchAgent } from '@wap/fetch';
import { AllowList } from '@wap/netguard';
import { browser, crawl, ledger } from '@wap/proto';
import { addService, createClient } from '@wap/rpc';
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { PrismaClient } from './generated/prisma/client.js';
import { scrapeRpc } from './rpc/scrape.js';
import { PageCache } from './store/page-cache.js';

const CACHE_KEEP_MS = 7 * 86_400_000;

export const definition: ServiceDefinition<typeof env, PrismaClient> = {
  name: 'crawl',
  env,
  openDatabase: (url) => new PrismaClient({ adapter: createPrismaAdapter(url) }),
  start: async ({ config, log, db, server }) => {
    const allow = AllowList.parse(config.EGRESS_ALLOW);
    if (!allow.empty) log.warn({ allow: allow.cidrs }, 'fetch allow-list is set: for local test sites only');
    const agent = createFetchAgent({ allow });
    const ledgerClient = createClient(ledger.LedgerService, config.BILLING_LEDGER_ADDR);
    const browserClient = config.BROWSER_HOST_ADDR
      ? createClient(browser.BrowserService, config.BROWSER_HOST_ADDR, { defaultTimeoutMs: 60_000 })
      : undefined;
    const cache = new PageCache(db);
    addService(
      server,
      crawl.CrawlService,
      { scrape: scrapeRpc({ agent, allow, browser: browserClient, ledger: ledgerClient, cache, log }) },
      log,
    );
    const sweep = setInterval(() => {
      cache.expire(CACHE_KEEP_MS).catch((err) => log.warn({ err }, 'page cache sweep failed'));
    }, 3_600_000);
    sweep.unref();
    return {
      stop: async () => {
        clearInterval(sweep);
        ledgerClient.close();
        browserClient?.close();
        await agent.close();
      },
    };
  },
};
