import { randomUUID } from 'node:crypto';
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

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);

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
