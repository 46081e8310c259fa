import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** One route of the table: a method, a path in express syntax (`/v1/crawl/:id`), and its handlers in order. */
export interface TableRoute {
  method: string;
  path: string;
  handlers: RequestHandler[];
}

/** A path split into segments: a literal (lower case) or a parameter's name. */
type Segment = { literal: string } | { param: string };

interface Entry {
  segments: Segment[];
  handlers: RequestHandler[];
}

function segmentsOf(path: string): Segment[] {
  return path
    .split('/')
    .slice(1)
    .map((part) => (part.startsWith(':') ? { param: part.slice(1) } : { literal: part.toLowerCase() }));
}

/**
 * The request's parameters when `segments` match its path the way express's router does
 * (case-insensitive, one trailing slash allowed, a parameter one non-empty segment,
 * percent-decoded); undefined when they do not, or a parameter does not decode (express
 * answers that one).
 */
function matchOf(segments: Segment[], parts: string[]): Record<string, string> | undefined {
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const segment = segments[i] as Segment;
    const part = parts[i] as string;
    if ('literal' in segment) {
      if (part.length !== segment.literal.length || part.toLowerCase() !== segment.literal) return undefined;
    } else {
      if (part === '') return undefined;
      try {
        params[segment.param] = part.includes('%') ? decodeURIComponent(part) : part;
      } catch {
        return undefined;
      }
    }
  }
  return params;
}

/**
 * A route table in front of express for routes of fixed shape (the registry's): a request
 * whose method and path match one runs that route's handlers at once, without walking the
 * app's routers before them; anything else, and any error, goes on through express (its
 * 404, 405 and error handler). Routes are tried in the order given, as express would.
 * The same routes stay mounted in express behind it, so a request the table passes on
 * (a HEAD, a parameter that does not decode) is answered as before.
 */
export function routeTable(routes: TableRoute[]): RequestHandler {
  const byMethod = new Map<string, Map<number, Entry[]>>();
  for (const route of routes) {
    const method = route.method.toUpperCase();
    const entry = { segments: segmentsOf(route.path), handlers: route.handlers };
    const byLength = byMethod.get(method) ?? new Map<number, Entry[]>();
    byMethod.set(method, byLength);
    byLength.set(entry.segments.length, [...(byLength.get(entry.segments.length) ?? []), entry]);
  }
  return (req, res, next) => {
    const byLength = byMethod.get(req.method);
    if (!byLength) return next();
    const path = req.path;
    const parts = (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).split('/').slice(1);
    for (const entry of byLength.get(parts.length) ?? []) {
      const params = matchOf(entry.segments, parts);
      if (!params) continue;
      req.params = params;
      return runChain(entry.handlers, req, res, next);
    }
    next();
  };
}

/** Runs handlers as express runs a route's: each goes on by `next()`; an error, thrown or rejected, goes to `done`. */
function runChain(handlers: RequestHandler[], req: Request, res: Response, done: NextFunction): void {
  let index = 0;
  const step: NextFunction = (err?: unknown) => {
    // `next('route')` and `next('router')` leave the route: express's own stack goes on from here.
    if (err === 'route' || err === 'router') return done();
    if (err) return done(err);
    const handler = handlers[index++];
    if (!handler) return done();
    try {
      const result: unknown = handler(req, res, step);
      if (result instanceof Promise) result.catch((error: unknown) => step(error ?? new Error('rejected')));
    } catch (error) {
      step(error);
    }
  };
  step();
}
