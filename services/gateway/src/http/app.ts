import { randomUUID } from 'node:crypto';
import { context } from '@opentelemetry/api';
import { ApiError, toErrorBody } from '@wap/errors';
import type { Logger } from '@wap/log';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';

export interface AppDeps {
  log: Logger;
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
  app.use(requestId);
  app.use(accessLog(deps.log));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const { ready, checks } = await deps.readiness();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });

  app.use((_req, _res, next) => next(new ApiError('not_found')));
  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    const body = toErrorBody(err, res.locals.requestId);
    const status = err instanceof ApiError ? err.status : 500;
    if (status >= 500) deps.log.error({ err, requestId: res.locals.requestId }, 'request failed');
    res.status(status).json(body);
  };
  app.use(onError);
  return app;
}
