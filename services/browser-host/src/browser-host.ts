// Builds the browser host from its config: the one place the egress proxy,
// the Chromium pool, the CDP sessions and the handlers are wired, shared by
// service.ts and the tests.
import { type LedgerClient, ledgerClient } from '@wap/billing';
import { type NatsLink, OutboxRelay, Publisher, sessionStreamNames } from '@wap/events';
import type { Logger } from '@wap/log';
import { AllowList } from '@wap/netguard';
import type { Browser } from 'puppeteer-core';
import type { BrowserHostConfig } from './config.js';
import { parseExits } from './domain/exits.js';
import { EgressProxy } from './egress/proxy.js';
import type { PrismaClient } from './generated/prisma/client.js';
import { lostSessionSweeper, sessionHeartbeat } from './jobs/lost-sessions.js';
import { BrowserPool } from './pool/pool.js';
import { Profiles } from './profiles/profiles.js';
import { chunkSink } from './recording/recording.js';
import { type BrowserHostDeps, browserService } from './rpc/index.js';
import { CdpServer } from './sessions/cdp-server.js';
import { SessionManager } from './sessions/manager.js';
import { OsUsers } from './sessions/os-users.js';
import type { Session } from './sessions/session.js';
import { ProfileStore } from './store/profiles.js';
import { SessionStore } from './store/sessions.js';

export type BrowserHostSettings = Pick<
  BrowserHostConfig,
  'CHROMIUM_PATH' | 'BROWSER_POOL_SIZE' | 'PAGES_PER_BROWSER' | 'RECYCLE_AFTER_PAGES' | 'EGRESS_ALLOW'
> &
  Partial<
    Pick<
      BrowserHostConfig,
      | 'BILLING_LEDGER_ADDR'
      | 'CDP_HOST'
      | 'CDP_PORT'
      | 'CDP_PUBLIC_URL'
      | 'SESSION_CAPACITY'
      | 'SESSION_UIDS'
      | 'SESSION_WARM'
      | 'SESSION_DRAIN_SECONDS'
      | 'SHUTDOWN_TIMEOUT'
      | 'RECORDING_KEY'
      | 'SCREENCAST_INTERVAL_MS'
      | 'PROFILE_KEY'
      | 'PROFILE_MAX_BYTES'
      | 'PROFILE_LEASE_TTL_SECONDS'
      | 'EXITS'
    >
  >;

/**
 * `db`: the host's database (session rows); tests of the render pool go without one.
 * `nats`: where session snapshots are relayed from the outbox for the session-recorder.
 */
export function openBrowserHost(
  config: BrowserHostSettings,
  log: Logger,
  db?: PrismaClient,
  nats?: { link: NatsLink; namespace: string },
) {
  const allow = AllowList.parse(config.EGRESS_ALLOW);
  if (!allow.empty) log.warn({ allow: allow.cidrs }, 'egress allow-list is set: for local test sites only');
  const egress = new EgressProxy(allow);
  // Each browser's own OS user where the host runs as root (docs/connect.md, "Isolation").
  const users = OsUsers.start(config.SESSION_UIDS ?? 'off', config.CHROMIUM_PATH, log);
  const ledger: LedgerClient | undefined = config.BILLING_LEDGER_ADDR
    ? ledgerClient(config.BILLING_LEDGER_ADDR)
    : undefined;
  const store = db ? new SessionStore(db, nats ? sessionStreamNames(nats.namespace).lifecycle : undefined) : undefined;
  const publisher = nats && new Publisher(nats.link.nc);
  const relay = db && publisher ? new OutboxRelay(db, publisher, log) : undefined;
  const recordings =
    publisher && nats && config.RECORDING_KEY
      ? // A person may drive a running session's browser (docs/sessions.md, "Human control").
        chunkSink(publisher, nats.namespace, config.RECORDING_KEY, nats.link.nc, (id): Browser | undefined => {
          const session: Session | undefined = sessions.get(id);
          return session && !session.ended ? session.browser.browser : undefined;
        })
      : undefined;
  // Renders are recorded too (docs/sessions.md, "Scrapes"): the pool's browsers carry the recorder.
  const pool = new BrowserPool({
    ...(users && { users }),
    executablePath: config.CHROMIUM_PATH,
    size: config.BROWSER_POOL_SIZE,
    pagesPerBrowser: config.PAGES_PER_BROWSER,
    recycleAfterPages: config.RECYCLE_AFTER_PAGES,
    log,
    ...(recordings && { recording: { allow, addressOf: (host: string) => egress.addressOf(host) } }),
  });
  const exits = parseExits(config.EXITS);
  const profiles =
    db && config.PROFILE_KEY
      ? new Profiles(
          new ProfileStore(db),
          {
            key: config.PROFILE_KEY,
            maxBytes: config.PROFILE_MAX_BYTES ?? 104_857_600,
            leaseTtlSeconds: config.PROFILE_LEASE_TTL_SECONDS ?? 30,
            exits,
          },
          log,
        )
      : undefined;
  if (exits.length > 0) log.info({ exits: exits.map((e) => ({ id: e.id, kind: e.kind, region: e.region })) }, 'exits');
  const sessions = new SessionManager({
    executablePath: config.CHROMIUM_PATH,
    allow,
    ...(users && { users }),
    capacity: config.SESSION_CAPACITY ?? 8,
    warm: ledger ? (config.SESSION_WARM ?? 1) : 0,
    ledger,
    log,
    store,
    recordings,
    screencastIntervalMs: config.SCREENCAST_INTERVAL_MS,
    ...(profiles && { profiles }),
  });
  const cdp = new CdpServer(sessions, log);
  const jobs =
    store && ledger ? [sessionHeartbeat(store, sessions, log, profiles), lostSessionSweeper(store, ledger, log)] : [];
  const deps: BrowserHostDeps = { pool, egress, allow, sessions, cdp, profiles };
  return {
    deps,
    store,
    impl: browserService(deps),
    /** Opens the egress proxy and the CDP endpoint, and warms session browsers; render browsers start on first use. */
    start: async () => {
      await egress.start();
      await cdp.listen(config.CDP_HOST ?? '127.0.0.1', config.CDP_PORT ?? 0, config.CDP_PUBLIC_URL);
      await sessions.start(cdp.publicUrl);
      for (const job of jobs) job.start();
      relay?.start();
    },
    healthy: () => pool.healthy(),
    stop: async () => {
      // The heartbeat and sweep run on while sessions drain: they are still this host's.
      // Within the shutdown deadline, with 5 s left to end and bill what outlives the drain.
      const drainMs = Math.min((config.SESSION_DRAIN_SECONDS ?? 0) * 1000, (config.SHUTDOWN_TIMEOUT ?? 0) - 5_000);
      await sessions.stop(Math.max(0, drainMs));
      await Promise.all(jobs.map((job) => job.stop()));
      // After the sessions ended, so their last snapshots go out before the host does.
      await relay?.drainOnce().catch((err) => log.warn({ err }, 'outbox not drained; the next host start relays it'));
      await relay?.stop();
      await cdp.close();
      await pool.close();
      await egress.stop();
      ledger?.close();
    },
  };
}
