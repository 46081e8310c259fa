// Builds the monitor service from its config, database and NATS link: the one
// place its stores, clients and jobs are wired, shared by service.ts and the
// tests (docs/monitors.md).
import { hostname } from 'node:os';
import { ledgerClient, priceUsage } from '@wap/billing';
import { creditsChangedSubject, type NatsLink } from '@wap/events';
import type { FetchAgent } from '@wap/fetch';
import type { Logger } from '@wap/log';
import { AllowList } from '@wap/netguard';
import { crawl } from '@wap/proto';
import { createClient } from '@wap/rpc';
import type { MonitorConfig } from './config.js';
import { SnapshotLinks } from './domain/links.js';
import { type CrawlClient, checkRunner, HELD } from './jobs/checks.js';
import { creditPauses } from './jobs/credit-pauses.js';
import { deliverySender } from './jobs/deliveries.js';
import { planCaps } from './jobs/plan-caps.js';
import { type MonitorDeps, monitorService } from './rpc/index.js';
import type { MonitorDatabase } from './store/database.js';
import { DeliveryStore } from './store/deliveries.js';
import { MonitorStore } from './store/monitors.js';
import { PauseStore } from './store/pauses.js';
import { PlanCapStore } from './store/plan-caps.js';

export type { MonitorDatabase };

/** The links notifications carry to their snapshots, on the gateway's public URL; none without MONITOR_KEY. */
export function snapshotLinks(config: MonitorConfig): SnapshotLinks | undefined {
  const publicUrl = config.PUBLIC_URL ?? `http://127.0.0.1:${config.HTTP_PORT}`;
  return config.MONITOR_KEY ? new SnapshotLinks(config.MONITOR_KEY, publicUrl) : undefined;
}

export function openMonitor(config: MonitorConfig, db: MonitorDatabase, nats: NatsLink, log: Logger) {
  const store = new MonitorStore(db);
  const token = config.SERVICE_TOKEN;
  const ledger = config.BILLING_LEDGER_ADDR ? ledgerClient(config.BILLING_LEDGER_ADDR, token) : undefined;
  const crawlClient: CrawlClient | undefined = config.CRAWL_ADDR
    ? createClient(crawl.CrawlService, config.CRAWL_ADDR, { defaultTimeoutMs: 90_000, token })
    : undefined;
  const announcements = { nc: nats.nc, subject: creditsChangedSubject(config.NATS_NAMESPACE) };
  const pauses =
    ledger &&
    creditPauses(
      { pauses: new PauseStore(db), ledger, log, checkHoldMc: priceUsage(HELD).millicredits, announcements },
      config.MONITOR_POLL,
    );
  // Without the ledger nothing is checked, past a plan's cap or not.
  const caps = ledger && planCaps({ caps: new PlanCapStore(db), ledger, log, announcements });
  const runner =
    ledger && crawlClient && pauses
      ? checkRunner(
          { store, ledger, crawl: crawlClient, log, replica: `${hostname()}:${process.pid}`, pause: pauses.pause },
          {
            pollMs: config.MONITOR_POLL,
            concurrency: config.MONITOR_CONCURRENCY,
            leaseMs: config.MONITOR_CHECK_LEASE,
          },
        )
      : undefined;
  if (!runner) log.warn('BILLING_LEDGER_ADDR or CRAWL_ADDR is not set: monitors are not checked');
  const allow = AllowList.parse(config.EGRESS_ALLOW);
  // Notifications leave through the same guard as every fetch; its client (undici) is loaded with the first one.
  let agent: Promise<FetchAgent> | undefined;
  const fetchAgent = () => {
    agent ??= import('@wap/fetch').then((fetch) => fetch.createFetchAgent({ allow }));
    return agent;
  };
  const links = snapshotLinks(config);
  const deps: MonitorDeps = {
    store,
    ...(caps && { deleted: caps.changed }),
    settings: {
      key: config.MONITOR_KEY,
      allow,
      links,
      discordOrigin: config.DISCORD_API_URL,
      slackOrigin: config.SLACK_HOOKS_URL,
    },
  };
  const sender =
    config.MONITOR_KEY && links
      ? deliverySender(
          {
            deliveries: new DeliveryStore(db),
            monitors: store,
            agent: fetchAgent,
            key: config.MONITOR_KEY,
            links,
            log,
          },
          config.MONITOR_POLL,
        )
      : undefined;
  return {
    deps,
    /** The MonitorService's handlers, for the gRPC server. */
    impl: monitorService(deps),
    /** Starts what runs besides the RPCs: the checks, the pauses (credits, plans) and the notifications' sender. */
    start: async () => {
      runner?.start();
      pauses?.start();
      caps?.start();
      sender?.start();
    },
    /** Stops taking work and waits for the pass in flight. */
    stop: async () => {
      await Promise.all([runner?.stop(), pauses?.stop(), caps?.stop(), sender?.stop()]);
      await (await agent)?.close();
      ledger?.close();
      crawlClient?.close();
    },
  };
}
