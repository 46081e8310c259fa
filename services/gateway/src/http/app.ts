import { randomUUID } from 'node:crypto';
import { context } from '@opentelemetry/api';
import type { PooledDatabase } from '@wap/db';
import { ApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import express, { type RequestHandler } from 'express';
import type { CreditViews } from '../credit-views.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { IdentityStore, Principal } from '../identity/store.js';
import { openApiDocument } from '../registry/openapi.js';
import type { Capability } from '../registry/types.js';
import type { CreditsView, Upstreams } from '../upstreams.js';
import { authenticate } from './auth.js';
import { docsRouter } from './docs.js';
import { errorHandler } from './errors.js';
import { idempotency, newOperationId } from './idempotency.js';
import { mountRegistry } from './mount.js';
import { type RateLimiter, rateLimit } from './rate-limit.js';

export interface AppDeps {
  log: Logger;
  db: PooledDatabase<PrismaClient>;
  /** The rate limiter's own connections (asynchronous commit). */
  limiter: RateLimiter;
  identity: IdentityStore;
  upstreams: Upstreams;
  creditViews: CreditViews<CreditsView>;
  registry: Capability[];
  publicUrl: string;
  maxBodyBytes: number;
  /** The gateway's own readiness (database, NATS) and that of every service behind it. */
  readiness(): Promise<{ ready: boolean; checks: Record<string, boolean> }>;
}

const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.header('x-request-id');
  const id = incoming && /^[\w.-]{1,128}$/.test(incoming) ? incoming : `req_${randomUUID().replaceAll('-', '')}`;
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
};

/** One line per request, written in the request's trace so it carries its trace id. */
const accessLog =
  (log: Logger): RequestHandler =>
  (req, res, next) => {
    const started = performance.now();
    const ctx = context.active();
    res.on('finish', () =>
      context.with(ctx, () =>
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
      ),
    );
    next();
  };

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestId);
  app.use(accessLog(deps.log));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const { ready, checks } = await deps.readiness();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });

  const document = openApiDocument(deps.registry, `${deps.publicUrl}`);
  app.get('/v1/openapi.json', (_req, res) => {
    res.json(document);
  });
  app.use(docsRouter());

  app.use(
    mountRegistry(deps.registry, {
      guard: [authenticate(deps.identity, 'rest'), rateLimit(deps.limiter)],
      beforeHandler: [idempotency(deps.db.prisma)],
      maxBodyBytes: deps.maxBodyBytes,
      context: (res) => ({
        principal: res.locals.principal as Principal,
        requestId: res.locals.requestId as string,
        operationId: (res.locals.operationId as string | undefined) ?? newOperationId(),
        upstreams: deps.upstreams,
        creditViews: deps.creditViews,
        log: deps.log,
      }),
      // The workspace's next credits read asks the ledger. A request that failed here
      // (a deadline, a client gone) may still be billed or released behind us: for a
      // while nothing of that workspace is cached, until the ledger's announcement.
      creditsMayHaveMoved: (res, failed) => {
        const principal = res.locals.principal as Principal | undefined;
        if (principal) deps.creditViews.changed(principal.workspaceId, failed ? 5_000 : 0);
      },
    }),
  );

  app.use((_req, _res, next) => next(new ApiError('not_found')));
  app.use(errorHandler(deps.log));
  return app;
}
