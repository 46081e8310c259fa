// Builds the monitor service from its config, database and NATS link: the one
// place its stores, clients and jobs are wired, shared by service.ts and the
// tests (docs/monitors.md).
import { hostname } from 'node:os';
import { ledgerClient } from '@wap/billing';
import type { NatsLink } from '@wap/events';
import { createFetchAgent } from '@wap/fetch';
import type { Logger } from '@wap/log';
import { AllowList } from '@wap/netguard';
import { crawl } from '@wap/proto';
import { createClient } from '@wap/rpc';
import type { MonitorConfig } from './config.js';
import type { PrismaClient } from './generated/prisma/client.js';
import { type CrawlClient, checkRunner } from './jobs/checks.js';
import { deliverySender } from './jobs/deliveries.js';
import { MonitorStore } from './store/monitors.js';

export type MonitorDatabase = PrismaClient;

/** A claimed check is this replica's for this long before another may take it over. */
const CHECK_LEASE_MS = 120_000;

export function openMonitor(config: MonitorConfig, db: MonitorDatabase, _nats: NatsLink, log: Logger) {
  const store = new MonitorStore(db);
  const ledger = config.BILLING_LEDGER_ADDR ? ledgerClient(config.BILLING_LEDGER_ADDR) : undefined;
  const crawlClient: CrawlClient | undefined = config.CRAWL_ADDR
    ? createClient(crawl.CrawlService, config.CRAWL_ADDR, { defaultTimeoutMs: 90_000 })
    : undefined;
  const runner =
    ledger && crawlClient
      ? checkRunner(
          { db, store, ledger, crawl: crawlClient, log, replica: `${hostname()}:${process.pid}` },
          { pollMs: config.MONITOR_POLL_MS, concurrency: config.MONITOR_CONCURRENCY, leaseMs: CHECK_LEASE_MS },
        )
      : undefined;
  if (!runner) log.warn('BILLING_LEDGER_ADDR or CRAWL_ADDR is not set: monitors are not checked');
  // Notifications leave through the same guard as every fetch.
  const agent = createFetchAgent({ allow: AllowList.parse(config.EGRESS_ALLOW) });
  const sender = config.MONITOR_KEY
    ? deliverySender({ db, agent, key: config.MONITOR_KEY, log }, config.MONITOR_POLL_MS)
    : undefined;
  return {
    store,
    /** Starts what runs besides the RPCs: the checks and the notifications' sender. */
    start: async () => {
      runner?.start();
      sender?.start();
    },
    /** Stops taking work and waits for the pass in flight. */
    stop: async () => {
      await Promise.all([runner?.stop(), sender?.stop()]);
      await agent.close();
      ledger?.close();
      crawlClient?.close();
    },
  };
}
