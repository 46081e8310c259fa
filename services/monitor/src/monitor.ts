// Builds the monitor service from its config, database and NATS link: the one
// place its stores, clients and jobs are wired, shared by service.ts and the
// tests (docs/monitors.md).
import { hostname } from 'node:os';
import { ledgerClient } from '@wap/billing';
import type { NatsLink } from '@wap/events';
import type { Logger } from '@wap/log';
import { crawl } from '@wap/proto';
import { createClient } from '@wap/rpc';
import type { MonitorConfig } from './config.js';
import type { PrismaClient } from './generated/prisma/client.js';
import { type CrawlClient, checkRunner } from './jobs/checks.js';
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
  return {
    store,
    /** Starts what runs besides the RPCs: the checks. */
    start: async () => {
      runner?.start();
    },
    /** Stops taking work and waits for the pass in flight. */
    stop: async () => {
      await runner?.stop();
      ledger?.close();
      crawlClient?.close();
    },
  };
}
