import { ApiError } from '@wap/errors';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Answer, Invoker } from '../invoke/invoke.js';
import type { Principal } from '../oauth/identity.js';
import { FIRECRAWL_V2_NOT_OFFERED } from '../registry/firecrawl-v2.js';
import { bodyLimitOf, type Capability, type RawInput, type RouteAlias, surfacesOf } from '../registry/types.js';
import { IDEMPOTENCY_KEY } from '../store/idempotency.js';
import { JSON_BODY_TYPES, requireBodyOf, requireJsonBody } from './input.js';
import { MULTIPART_BODY_TYPES, multipartBody } from './multipart.js';
import type { TableRoute } from './route-table.js';

/** Express path syntax from the OpenAPI form: `/v1/crawl/{id}` → `/v1/crawl/:id`. */
export const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

export interface MountDeps {
  /** Runs before every capability: authentication. */
  guard: RequestHandler[];
  invoker: Invoker;
  /** The largest body of a row without files (a row with files takes theirs on top: bodyLimitOf). */
  maxBodyBytes: number;
}

/** The parsers of a row's body: JSON within its limit, and multipart too for a row with files. */
function bodyParsers(row: Capability, maxBodyBytes: number, bodyPart?: string): RequestHandler[] {
  if (row.method !== 'post' && row.method !== 'put') return [];
  // Any JSON value is read; one that is not an object is refused by the row's schema, naming the body.
  const json = (limit: number) => express.json({ limit, type: JSON_BODY_TYPES, strict: false });
  const limit = bodyLimitOf(row, maxBodyBytes);
  if (!row.files) return [requireJsonBody, json(limit)];
  return [
    requireBodyOf([...JSON_BODY_TYPES, ...MULTIPART_BODY_TYPES], 'application/json or multipart/form-data'),
    json(limit),
    multipartBody(row.files, limit, maxBodyBytes, bodyPart),
  ];
}

/** Writes an answer as HTTP: JSON with its status, NDJSON lines, server-sent events, or a redirect. */
async function write(res: Response, answer: Answer, signal: AbortSignal): Promise<void> {
  switch (answer.kind) {
    case 'json':
      res.status(answer.status).json(answer.body);
      return;
    case 'redirect':
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(answer.status, answer.location);
      return;
    case 'ndjson':
    case 'sse': {
      const sse = answer.kind === 'sse';
      res.status(200);
      res.setHeader('Content-Type', sse ? 'text/event-stream; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
      res.setHeader('Cache-Control', 'no-store');
      if (sse) res.setHeader('X-Accel-Buffering', 'no'); // proxies pass events as they come
      res.flushHeaders();
      try {
        for await (const item of answer.items) {
          if (signal.aborted) break;
          const line = JSON.stringify(item);
          const ok = res.write(sse ? `data: ${line}\n\n` : `${line}\n`);
          if (!ok) await new Promise((resolve) => res.once('drain', resolve));
        }
      } catch (err) {
        // The status is gone: the stream says how it ended in its last frame, as the Error object.
        const body = err instanceof ApiError ? { error: { code: err.code, message: err.message } } : undefined;
        if (body && !signal.aborted)
          res.write(sse ? `event: error\ndata: ${JSON.stringify(body)}\n\n` : `${JSON.stringify(body)}\n`);
        if (!(err instanceof ApiError)) throw err;
      } finally {
        res.end();
      }
      return;
    }
  }
}

/**
 * The key a request gives for its retries: `Idempotency-Key`, or, when that is absent,
 * `X-Idempotency-Key`, the name Firecrawl's clients send it under. Both with different
 * values is refused rather than one chosen: the caller would not know which held. Only a
 * POST row keeps answers by key; elsewhere both headers are ignored, as a key always was.
 */
export function idempotencyKeyOf(req: Request, row: Capability): string | undefined {
  const key = req.header('idempotency-key');
  if (row.method !== 'post') return key;
  const alias = req.header('x-idempotency-key');
  if (alias === undefined || alias === key) return key;
  const refuse = (message: string) =>
    new ApiError('bad_request', { issues: [{ path: 'header.X-Idempotency-Key', message }] });
  if (key !== undefined) throw refuse('differs from Idempotency-Key: send one of them, or the same key in both');
  if (!IDEMPOTENCY_KEY.test(alias)) throw refuse('must be 1 to 255 visible ASCII characters');
  return alias;
}

/**
 * REST routes from the registry, each one call of the invoke path (a row's aliases too); a known
 * path with another method answers 405. The same routes come as a table too, for `routeTable`
 * in front of the app's other routers (decision 0029); the router behind it answers the rest.
 */
export function mountRegistry(rows: Capability[], deps: MountDeps): { router: Router; table: TableRoute[] } {
  const router = express.Router({ strict: false });
  const table: TableRoute[] = [];
  const methodsByPath = new Map<string, string[]>();
  const mount = (method: Capability['method'], path: string, ...handlers: RequestHandler[]) => {
    router[method](path, ...handlers);
    table.push({ method, path, handlers });
  };

  // Firecrawl v2 routes we do not have, whose paths a row's v2 route would otherwise take (`/v2/crawl/active`).
  for (const notHere of FIRECRAWL_V2_NOT_OFFERED) mount(notHere.method, notHere.path, notOffered);

  for (const row of rows.filter((r) => surfacesOf(r).includes('rest'))) {
    const run =
      (route: Capability | RouteAlias): RequestHandler =>
      async (req, res, next) => {
        const abort = new AbortController();
        // Only a client that left before its answer aborts the work (an abort also builds a DOMException).
        res.on('close', () => {
          if (!res.writableFinished) abort.abort();
        });
        try {
          const translate = 'translate' in route ? route.translate : undefined;
          const sent: RawInput = { params: req.params as Record<string, string>, query: req.query, body: req.body };
          const input = translate?.request ? translate.request(sent) : sent;
          const answer = await deps.invoker.invoke({
            row,
            principal: res.locals.principal as Principal,
            surface: 'rest',
            input,
            requestId: res.locals.requestId as string,
            idempotencyKey: idempotencyKeyOf(req, row),
            signal: abort.signal,
            setHeader: (name, value) => res.setHeader(name, value),
          });
          const answered =
            translate?.response && answer.kind === 'json'
              ? { ...answer, body: translate.response(answer.body, sent) }
              : answer;
          await write(res, answered, abort.signal);
        } catch (err) {
          next(err);
        }
      };
    // An alias reads its input as the row does, so it answers exactly what the row would.
    for (const alias of [row, ...(row.alsoAt ?? [])]) {
      const path = expressPath(alias.path);
      methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), alias.method.toUpperCase()]);
      const bodyPart = 'bodyPart' in alias ? alias.bodyPart : undefined;
      mount(alias.method, path, ...deps.guard, ...bodyParsers(row, deps.maxBodyBytes, bodyPart), run(alias));
    }
  }

  for (const [path, methods] of methodsByPath) {
    const allow = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
    router.all(path, (_req, res, next) => {
      res.setHeader('Allow', allow.join(', '));
      next(new ApiError('method_not_allowed', { allow }));
    });
  }
  // Every other route of Firecrawl's v2 API (extract, parse, agent, browser...): said so, never a bare 404.
  router.all('/v2/*splat', notOffered);
  return { router, table };
}

/**
 * A route of Firecrawl's v2 API this server has no counterpart for: `not_found` with
 * `details.notOffered`, which the v2 error body words as "not offered by this server".
 */
const notOffered: RequestHandler = (req, _res, next) =>
  next(
    new ApiError('not_found', {
      notOffered: `${req.method} ${req.path}`,
      docs: 'docs/migrating-from-firecrawl.md',
    }),
  );
