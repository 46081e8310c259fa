import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { context } from '@opentelemetry/api';
import type { BrowserHosts } from '@wap/browser-hosts';
import { ApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import { inIncomingTrace } from '@wap/telemetry';
import express, { type RequestHandler } from 'express';
import type { Upstreams } from '../clients/upstreams.js';
import { consoleRouter } from '../console-server/router.js';
import type { Invoker } from '../invoke/invoke.js';
import { mcpRouter } from '../mcp/server.js';
import type { IdentityStore, Principal } from '../oauth/identity.js';
import { oauthRouter, resourceMetadataUrl } from '../oauth/routes.js';
import { API_VERSION, openApiDocument } from '../registry/openapi.js';
import type { Capability } from '../registry/types.js';
import type { HumanControl } from '../replay/control.js';
import type { ReplayLinks } from '../replay/links.js';
import type { LiveFrames } from '../replay/live.js';
import { authenticate } from './auth.js';
import type { ClientAddress } from './client-address.js';
import { connectQuery, connectRouter } from './connect.js';
import { controlRouter } from './control.js';
import { docsRouter } from './docs.js';
import { errorHandler } from './errors.js';
import { mountRegistry } from './mount.js';
import { replayRouter } from './replay.js';
import { routeTable } from './route-table.js';
import { snapshotsRouter } from './snapshots.js';

export interface AppDeps {
  log: Logger;
  identity: IdentityStore;
  /** The one invoke path every surface calls registry rows through. */
  invoker: Invoker;
  registry: Capability[];
  /** The services behind the gateway. */
  upstreams: Upstreams;
  /** The browser hosts GET /connect places sessions on; absent without browser-host. */
  hosts?: BrowserHosts;
  publicUrl: string;
  /** Signs and checks replay links; absent, there is no /replay. */
  replays?: ReplayLinks;
  /** Running sessions' screencast frames, for the replay page's live view. */
  live?: LiveFrames;
  /** Human control of running sessions through control links (docs/sessions.md, "Human control"). */
  control?: HumanControl;
  maxBodyBytes: number;
  /** The address a request is throttled by: its peer, or what a trusted proxy says (TRUSTED_PROXIES). */
  clientAddress: ClientAddress;
  /** OAUTH_KEY: with it the gateway is the authorization server of its API (docs/oauth.md). */
  oauthKey?: string;
  /** Where the console's build is (CONSOLE_DIR); without index.html there, /console is 404. */
  consoleDir: string;
  /** The gateway's own readiness (database, NATS) and, unless `ownOnly`, that of every service behind it. */
  readiness(ownOnly?: boolean): Promise<{ ready: boolean; checks: Record<string, boolean> }>;
}

/** A request id of ours, for a request that brought no sane one. */
export const newRequestId = () => `req_${randomUUID().replaceAll('-', '')}`;

/** The request's id: the caller's X-Request-Id when it is sane, else one of ours; echoed back. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.header('x-request-id');
  const id = incoming && /^[\w.-]{1,128}$/.test(incoming) ? incoming : newRequestId();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
};

/** HTTP/1.1 requires Host (RFC 9112 section 3.2); Node's own check would answer a bare 400 (client-error.ts). */
const requireHost: RequestHandler = (req, _res, next) => {
  if (req.httpVersion !== '1.1' || req.headers.host !== undefined) return next();
  next(new ApiError('bad_request', { issues: [{ path: 'header.Host', message: 'is required in HTTP/1.1' }] }));
};

/** A request header's one value, as a carrier of trace context. */
export const headerOf = (req: IncomingMessage) => (key: string) => {
  const value = req.headers[key];
  return typeof value === 'string' ? value : undefined;
};

/**
 * The request's trace: the caller's (a `traceparent` header) or a new one, in a span of
 * the gateway's own, which every log line and outgoing gRPC call and NATS message of the
 * request carries on. Its request and response events are bound to it too: a handler that
 * resumes on one (a body read, `finish`) stays in the request's trace.
 */
const traceRequest: RequestHandler = (req, res, next) =>
  inIncomingTrace(headerOf(req), 'http', () => {
    const ctx = context.active();
    context.bind(ctx, req);
    context.bind(ctx, res);
    next();
  });

/** One line per request, written once its answer has gone, in the request's trace so it carries its trace id. */
const accessLog =
  (log: Logger): RequestHandler =>
  (req, res, next) => {
    const started = performance.now();
    res.on('finish', () =>
      log.info(
        {
          method: req.method,
          path: req.path,
          status: res.statusCode,
          ms: Math.round(performance.now() - started),
          requestId: res.locals.requestId,
          workspaceId: (res.locals.principal as Principal | undefined)?.workspaceId,
        },
        'request',
      ),
    );
    next();
  };

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(traceRequest);
  app.use(requestId);
  app.use(accessLog(deps.log));
  app.use(requireHost);
  // The registry's routes answer here, before the routers below are walked (decision 0029); the
  // same routes are mounted behind them too, for what the table passes on.
  const registry = mountRegistry(deps.registry, {
    // The console's cookie works here, on REST, and nowhere else (not /mcp, not /connect).
    guard: [authenticate(deps.identity, 'rest', { publicUrl: deps.publicUrl })],
    invoker: deps.invoker,
    maxBodyBytes: deps.maxBodyBytes,
  });
  app.use(routeTable(registry.table));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // `?scope=gateway`: the gateway's own checks only, for a load balancer's probe. A gateway whose
  // database and NATS answer stays in rotation while a service behind it is down or rolling:
  // its requests get that service's 503 with Retry-After, not a connection refused by every gateway.
  app.get('/readyz', async (req, res) => {
    const { ready, checks } = await deps.readiness(req.query.scope === 'gateway');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });

  const document = openApiDocument(
    deps.registry,
    `${deps.publicUrl}`,
    deps.upstreams.configured('browser-host') ? connectQuery : undefined,
  );
  app.get('/v1/openapi.json', (_req, res) => {
    res.json(document);
  });
  app.use(docsRouter());
  if (deps.oauthKey)
    app.use(
      oauthRouter({
        store: deps.identity.oauth,
        publicUrl: deps.publicUrl,
        key: deps.oauthKey,
        clientAddress: deps.clientAddress,
        log: deps.log,
      }),
    );
  app.use(connectRouter({ identity: deps.identity, upstreams: deps.upstreams, hosts: deps.hosts, log: deps.log }));
  if (deps.replays)
    app.use(replayRouter({ links: deps.replays, upstreams: deps.upstreams, live: deps.live, log: deps.log }));
  if (deps.replays && deps.live && deps.control)
    app.use(controlRouter({ links: deps.replays, control: deps.control, upstreams: deps.upstreams, live: deps.live }));
  if (deps.upstreams.configured('monitor')) app.use(snapshotsRouter({ upstreams: deps.upstreams }));
  app.use(
    consoleRouter({
      identity: deps.identity,
      publicUrl: deps.publicUrl,
      clientAddress: deps.clientAddress,
      log: deps.log,
      dir: deps.consoleDir,
    }),
  );

  app.use(
    mcpRouter({
      identity: deps.identity,
      invoker: deps.invoker,
      rows: deps.registry,
      log: deps.log,
      maxBodyBytes: deps.maxBodyBytes,
      version: API_VERSION,
    }),
  );
  app.use(registry.router);

  app.use((_req, _res, next) => next(new ApiError('not_found')));
  app.use(
    errorHandler(
      deps.log,
      deps.oauthKey
        ? (path) => resourceMetadataUrl(deps.publicUrl, path === '/mcp' || path.startsWith('/mcp/') ? 'mcp' : 'rest')
        : undefined,
    ),
  );
  return app;
}
