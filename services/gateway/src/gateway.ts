// Builds the gateway from its config, database and NATS link: the one place
// identity, the invoke path, the registry, the HTTP app and the jobs are
// wired, shared by service.ts and the tests.
import type { Server } from 'node:http';
import { BrowserHosts } from '@wap/browser-hosts';
import { creditsChangedSubject, type NatsLink } from '@wap/events';
import type { Logger } from '@wap/log';
import { inIncomingTrace } from '@wap/telemetry';
import type { Express } from 'express';
import { LedgerViews } from './clients/ledger-views.js';
import { Upstreams } from './clients/upstreams.js';
import type { GatewayConfig } from './config.js';
import { DEFAULT_CONSOLE_DIR } from './console-server/static.js';
import { demoSite } from './demo/site.js';
import { createApp, headerOf } from './http/app.js';
import { bearerChallenge } from './http/auth.js';
import { clientAddressOf } from './http/client-address.js';
import { answerParserRefusals } from './http/client-error.js';
import { connectUpgrade } from './http/connect.js';
import { v2Watch, watchedCrawl } from './http/v2-watch.js';
import { Invoker } from './invoke/invoke.js';
import { idempotencySweeper } from './jobs/idempotency-sweep.js';
import { type ApiKeyRow, IdentityStore } from './oauth/identity.js';
import { buildRegistry } from './registry/index.js';
import type { Capability } from './registry/types.js';
import { CachedControlGate, type ControlGate, HumanControl, noControl } from './replay/control.js';
import { ReplayLinks } from './replay/links.js';
import { LiveFrames } from './replay/live.js';
import { ApiKeyCache } from './store/api-key-cache.js';
import type { GatewayDatabase } from './store/database.js';
import { IdempotencyStore } from './store/idempotency.js';
import { KeyUses } from './store/key-uses.js';
import { RateLimiter, rateLimitPool } from './store/rate-limit.js';

export interface GatewayOptions {
  /** The rows to serve; by default those of the configured backends. */
  registry?: (upstreams: Upstreams) => Capability[];
  /** The gateway's own readiness (its database and NATS, as the runtime's health service sees them). */
  ownReadiness?: () => Promise<boolean>;
  /** Who may drive a running session through a control link; by default nobody. */
  controlGate?: ControlGate;
}

/** A person may drive a session while the agent run it belongs to is taken over (the agent service says). */
function agentControlGate(upstreams: Upstreams): ControlGate {
  if (!upstreams.configured('agent')) return noControl;
  return {
    allowed: async (workspaceId, sessionId) =>
      (await upstreams.agent.controlAllowed({ workspaceId, sessionId })).allowed,
  };
}

/**
 * The URL clients use, as one spelling: the scheme and host in lower case and
 * no trailing slash, so whatever compares it (the cookies' Secure, the OAuth
 * issuer, an Origin) reads `HTTPS://Api.Example.com/` as https://api.example.com.
 */
export function publicUrlOf(config: Pick<GatewayConfig, 'PUBLIC_URL' | 'HTTP_HOST' | 'HTTP_PORT'>): string {
  if (!config.PUBLIC_URL) return `http://${config.HTTP_HOST}:${config.HTTP_PORT}`;
  return new URL(config.PUBLIC_URL).href.replace(/\/+$/, '');
}

/** `app` listening on host:port; fails as the listen fails (the port taken, the address not this machine's). */
function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
}

const boundPort = (s: Server) => {
  const address = s.address();
  return address && typeof address === 'object' ? address.port : 0;
};

export function openGateway(
  config: GatewayConfig,
  db: GatewayDatabase,
  nats: NatsLink,
  log: Logger,
  options: GatewayOptions = {},
) {
  const upstreams = new Upstreams(config);
  const registry = (options.registry ?? buildRegistry)(upstreams);
  const hosts = upstreams.configured('browser-host')
    ? new BrowserHosts(nats, config.NATS_NAMESPACE, upstreams.configuredBrowser, config.SERVICE_TOKEN, log)
    : undefined;
  // Any replica answers for profiles (they share a database): one that is alive, not only BROWSER_HOST_ADDR.
  if (hosts) upstreams.routeBrowser(() => hosts.any());
  const ledgerViews = new LedgerViews(nats.nc, creditsChangedSubject(config.NATS_NAMESPACE), log, {
    ttlMs: config.CREDIT_VIEW_TTL,
  });
  const limiterPool = rateLimitPool(config.DATABASE_URL);
  const keys = new ApiKeyCache<ApiKeyRow>(config.DATABASE_URL, log);
  const idempotency = new IdempotencyStore(db.prisma);
  const identity = new IdentityStore(db, keys, new KeyUses(db.pool, log));
  const publicUrl = publicUrlOf(config);
  // Replays need the recordings (session-recorder) and a key to sign their links.
  const replays =
    config.REPLAY_KEY && upstreams.configured('session-recorder')
      ? new ReplayLinks(config.REPLAY_KEY, publicUrl, config.REPLAY_LINK_TTL)
      : undefined;
  const limiter = new RateLimiter(limiterPool);
  const invoker = new Invoker({
    replays,
    publicUrl,
    log,
    limiter,
    idempotency,
    upstreams,
    ledgerViews,
    strictContracts: config.STRICT_CONTRACTS,
  });
  const app = createApp({
    ...(config.OAUTH_KEY && { oauthKey: config.OAUTH_KEY }),
    log,
    identity,
    invoker,
    registry,
    upstreams,
    hosts,
    publicUrl,
    replays,
    live: replays && new LiveFrames(nats.nc, config.NATS_NAMESPACE),
    control:
      replays &&
      new HumanControl(
        nats.nc,
        config.NATS_NAMESPACE,
        new CachedControlGate(options.controlGate ?? agentControlGate(upstreams), log),
      ),
    maxBodyBytes: config.MAX_BODY_BYTES,
    clientAddress: clientAddressOf(config.TRUSTED_PROXIES, config.TRUSTED_PROXY_HEADER),
    consoleDir: config.CONSOLE_DIR ?? DEFAULT_CONSOLE_DIR,
    readiness: async (ownOnly = false) => {
      const [own, services] = await Promise.all([
        options.ownReadiness?.() ?? true,
        ownOnly ? {} : upstreams.readiness(),
      ]);
      const checks = { gateway: own, ...services };
      return { ready: Object.values(checks).every(Boolean), checks };
    },
  });
  const jobs = [idempotencySweeper(idempotency, log)];
  const watch = upstreams.configured('crawl')
    ? v2Watch({ identity, upstreams, limiter, log, challenge: bearerChallenge })
    : undefined;
  let server: Server | undefined;
  let demo: Server | undefined;

  return {
    app,
    registry,
    identity,
    upstreams,
    /**
     * Starts the caches and jobs and listens on HTTP_HOST:HTTP_PORT, and on DEMO_SITE for the demo shop;
     * answers the bound addresses.
     */
    start: async (): Promise<{ url: string; server: Server; demoUrl?: string }> => {
      await ledgerViews.start();
      hosts?.start();
      keys.start();
      // Normally listening within milliseconds; if not, requests read the database until it is.
      await Promise.race([keys.whenListening(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
      for (const job of jobs) job.start();
      const listening = await listen(app, config.HTTP_PORT, config.HTTP_HOST);
      listening.keepAliveTimeout = 65_000; // longer than common load balancer idle timeouts
      // What Node's parser refuses (bad bytes, huge headers) answers the Error object, not an empty 400.
      answerParserRefusals(listening, log);
      // A WebSocket upgrade on /connect is answered with a redirect to the browser host, never upgraded here;
      // one on a crawl's or batch's v2 (or v1) status is Firecrawl's watcher, served here (http/v2-watch.ts).
      const connect = connectUpgrade({ identity, upstreams, hosts, log }, bearerChallenge);
      listening.on('upgrade', (req, socket, head: Buffer) =>
        inIncomingTrace(headerOf(req), 'upgrade', () => {
          const crawlId = watch && watchedCrawl(req.url);
          if (watch && crawlId) watch.upgrade(req, socket, head, crawlId);
          else connect(req, socket);
        }),
      );
      server = listening;
      const url = `http://${config.HTTP_HOST}:${boundPort(listening)}`;
      if (!config.DEMO_SITE) return { url, server: listening };
      const [host, demoPort] = config.DEMO_SITE.split(':') as [string, string];
      demo = await listen(demoSite(log), Number(demoPort), host);
      return { url, server: listening, demoUrl: `http://${host}:${boundPort(demo)}` };
    },
    /** Stops accepting, lets in-flight requests finish (the runtime's deadline bounds this), closes the rest. */
    stop: async () => {
      await Promise.all(jobs.map((job) => job.stop()));
      watch?.close();
      if (server) {
        // A client keeping its connection alive would go on sending here: each answer from now on
        // says Connection: close, so its next request opens a connection to a gateway that stays.
        server.prependListener('request', (_req, res) => {
          if (!res.headersSent) res.setHeader('connection', 'close');
        });
        // close() also ends the connections idle right now (Node >= 19).
        await new Promise<void>((resolve) => server?.close(() => resolve()));
      }
      if (demo) await new Promise<void>((resolve) => demo?.close(() => resolve()));
      hosts?.stop();
      upstreams.close();
      await Promise.all([limiterPool.end(), keys.stop(), ledgerViews.stop()]);
    },
  };
}
