import { ApiError } from '@wap/errors';
import express, { type RequestHandler, type Router } from 'express';
import type { Capability, HandlerContext } from '../registry/types.js';
import { JSON_BODY_TYPES, parsePart, requireJsonBody } from './input.js';

/** Express path syntax from the OpenAPI form: `/v1/crawl/{id}` → `/v1/crawl/:id`. */
export const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

export interface MountDeps {
  /** Runs before every capability: authentication, then the rate limit. */
  guard: RequestHandler[];
  /** Runs after the body is parsed, before the handler (idempotency). */
  beforeHandler: RequestHandler[];
  context(res: express.Response, signal: AbortSignal): Omit<HandlerContext, 'signal'>;
  /** After every request that may move credits (any but a read), answered (`failed` false) or not. */
  creditsMayHaveMoved(res: express.Response, failed: boolean): void;
  maxBodyBytes: number;
}

/** REST routes from the registry; a known path with another method answers 405. */
export function mountRegistry(rows: Capability[], deps: MountDeps): Router {
  const router = express.Router({ strict: false });
  const json = express.json({ limit: deps.maxBodyBytes, type: JSON_BODY_TYPES });
  const methodsByPath = new Map<string, string[]>();

  for (const row of rows) {
    const path = expressPath(row.path);
    methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), row.method.toUpperCase()]);
    // A billed request charges; another write (a crawl's cancel) may release a hold.
    const movesCredits = row.bills.length > 0 || row.method !== 'get';
    const run: RequestHandler = async (req, res, next) => {
      const abort = new AbortController();
      // Only a client that left before its answer aborts the work (an abort also builds a DOMException).
      res.on('close', () => {
        if (!res.writableFinished) abort.abort();
      });
      try {
        const input = {
          params: parsePart(row.request.params, req.params, 'path'),
          query: parsePart(row.request.query, req.query, 'query'),
          body: parsePart(row.request.body, req.body, 'body'),
        };
        const ctx: HandlerContext = { ...deps.context(res, abort.signal), signal: abort.signal };
        const result = await row.handler(ctx, input as never);
        if (movesCredits) deps.creditsMayHaveMoved(res, false);
        res.status(200).json(result);
      } catch (err) {
        if (movesCredits) deps.creditsMayHaveMoved(res, true);
        next(err);
      }
    };
    const body = row.method === 'post' || row.method === 'put' ? [requireJsonBody, json] : [];
    router[row.method](path, ...deps.guard, ...body, ...deps.beforeHandler, run);
  }

  for (const [path, methods] of methodsByPath) {
    const allow = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
    router.all(path, (_req, res, next) => {
      res.setHeader('Allow', allow.join(', '));
      next(new ApiError('method_not_allowed', { allow }));
    });
  }
  return router;
}
