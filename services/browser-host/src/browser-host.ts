// Builds the browser host from its config: the one place the egress proxy,
// the Chromium pool, the CDP sessions and the handlers are wired, shared by
// service.ts and the tests.
import { type LedgerClient, ledgerClient } from '@wap/billing';
import { type NatsLink, OutboxRelay, Publisher, sessionStreamNames } from '@wap/events';
import type { Logger } from '@wap/log';
import { AllowList } from '@wap/netguard';
import type { Registry } from '@wap/service';
import type { Browser } from 'puppeteer-core';
import { stopOcr } from './captcha/ocr.js';
import { taskApiProvider } from './captcha/provider.js';
import type { BrowserHostConfig } from './config.js';
import { renderFace } from './domain/browser-face.js';
import { parsePlace, placeFace } from './domain/exit-place.js';
import { parseExits } from './domain/exits.js';
import { EgressProxy } from './egress/proxy.js';
import { hostAnnouncer } from './jobs/announce.js';
import { lostSessionSweeper, sessionHeartbeat } from './jobs/lost-sessions.js';
import { BrowserPool } from './pool/pool.js';
import { Profiles } from './profiles/profiles.js';
import { chunkSink } from './recording/recording.js';
import { type BrowserHostDeps, browserService } from './rpc/index.js';
import { CdpServer } from './sessions/cdp-server.js';
import { SessionManager } from './sessions/manager.js';
import { sessionGauges } from './sessions/metrics.js';
import { OsUsers } from './sessions/os-users.js';
import type { Session } from './sessions/session.js';
import { chromiumVersion } from './sessions/session-browser.js';
import type { BrowserHostDatabase } from './store/database.js';
import { ProfileStore } from './store/profiles.js';
import { SessionStore } from './store/sessions.js';

/** What the service hands the host besides its settings (tests go without). */
export interface BrowserHostOptions {
  /** Where the session gauges are registered. */
  metrics?: Registry;
}

/**
 * `db`: the host's database (session rows); tests of the render pool go without one.
 * `nats`: where session snapshots are relayed from the outbox for the session-recorder, and where the host
 * announces itself to the gateways when it offers sessions, under NATS_NAMESPACE; tests may go without.
 */
export function openBrowserHost(
  config: BrowserHostConfig,
  db: BrowserHostDatabase | undefined,
  nats: NatsLink | undefined,
  log: Logger,
  { metrics }: BrowserHostOptions = {},
) {
  const namespace = config.NATS_NAMESPACE;
  const allow = AllowList.parse(config.EGRESS_ALLOW);
  if (!allow.empty) log.warn({ allow: allow.cidrs }, 'egress allow-list is set: for local test sites only');
  const egress = new EgressProxy(allow);
  // Each browser's own OS user where the host runs as root (docs/connect.md, "Isolation").
  const users = OsUsers.start(config.SESSION_UIDS, config.CHROMIUM_PATH, log);
  const ledger: LedgerClient | undefined = config.BILLING_LEDGER_ADDR
    ? ledgerClient(config.BILLING_LEDGER_ADDR, config.SERVICE_TOKEN)
    : undefined;
  const store = db ? new SessionStore(db, nats ? sessionStreamNames(namespace).lifecycle : undefined) : undefined;
  const publisher = nats && new Publisher(nats.nc);
  const relay = db && publisher ? new OutboxRelay(db, publisher, log) : undefined;
  const recordings =
    publisher && nats && config.RECORDING_KEY
      ? // A person may drive a running session's browser (docs/sessions.md, "Human control").
        chunkSink(publisher, namespace, config.RECORDING_KEY, nats.nc, (id): Browser | undefined => {
          const session: Session | undefined = sessions.get(id);
          return session && !session.ended ? session.browser.browser : undefined;
        })
      : undefined;
  const egressPlace = parsePlace(config.EGRESS_PLACE);
  // Renders are recorded too (docs/sessions.md, "Scrapes"): the pool's browsers carry the recorder.
  const pool = new BrowserPool({
    ...(users && { users }),
    executablePath: config.CHROMIUM_PATH,
    face: renderFace(chromiumVersion(config.CHROMIUM_PATH), placeFace(egressPlace)),
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
            maxBytes: config.PROFILE_MAX_BYTES,
            leaseTtlMs: config.PROFILE_LEASE_TTL,
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
    walls: config.SESSION_NETWORK === 'walled',
    capacity: config.SESSION_CAPACITY,
    warm: ledger ? config.SESSION_WARM : 0,
    ledger,
    log,
    store,
    recordings,
    screencastIntervalMs: config.SCREENCAST_INTERVAL,
    screencastAlways: config.SCREENCAST === 'always',
    ...(profiles && { profiles }),
    egressPlace,
  });
  const captchaSolver =
    config.CAPTCHA_SOLVER_URL && config.CAPTCHA_SOLVER_KEY
      ? taskApiProvider({
          url: config.CAPTCHA_SOLVER_URL,
          key: config.CAPTCHA_SOLVER_KEY,
          pollMs: config.CAPTCHA_SOLVER_POLL,
        })
      : undefined;
  const cdp = new CdpServer(sessions, log, captchaSolver);
  const jobs =
    store && ledger ? [sessionHeartbeat(store, sessions, log, profiles), lostSessionSweeper(store, ledger, log)] : [];
  if (metrics) sessionGauges(metrics, sessions);
  // Announced only when sessions are offered (a ledger to bill them); stopped first on the way out.
  const announcer =
    nats && ledger
      ? hostAnnouncer(
          nats,
          namespace,
          config.GRPC_PUBLIC_ADDR ?? `${config.GRPC_HOST}:${config.GRPC_PORT}`,
          sessions,
          log,
        )
      : undefined;
  const deps: BrowserHostDeps = { pool, egress, allow, sessions, cdp, profiles, captchaSolver };
  return {
    deps,
    store,
    impl: browserService(deps),
    /** Opens the egress proxy and the CDP endpoint, and warms session browsers; render browsers start on first use. */
    start: async () => {
      await egress.start();
      await cdp.listen(config.CDP_HOST, config.CDP_PORT, config.CDP_PUBLIC_URL);
      await sessions.start(cdp.publicUrl);
      for (const job of jobs) job.start();
      relay?.start();
    },
    /** Tells the gateways this host takes sessions: once its handlers are registered (a no-op without a ledger). */
    announce: () => announcer?.start(),
    healthy: () => pool.healthy(),
    stop: async () => {
      await announcer?.stop();
      // The heartbeat and sweep run on while sessions drain: they are still this host's.
      // Within the shutdown deadline, with 5 s left to end and bill what outlives the drain.
      const drainMs = Math.min(config.SESSION_DRAIN, config.SHUTDOWN_TIMEOUT - 5_000);
      await sessions.stop(Math.max(0, drainMs));
      await Promise.all(jobs.map((job) => job.stop()));
      // After the sessions ended, so their last snapshots go out before the host does.
      await relay?.drainOnce().catch((err) => log.warn({ err }, 'outbox not drained; the next host start relays it'));
      await relay?.stop();
      await stopOcr();
      await cdp.close();
      await pool.close();
      await egress.stop();
      ledger?.close();
    },
  };
}
