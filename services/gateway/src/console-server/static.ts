// The console's build (services/gateway/console → dist/console, or
// CONSOLE_DIR): hashed assets cached for a year, index.html for every other
// path (the app routes in the browser), never cached. Without a build,
// /console is 404 and nothing else changes.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ApiError } from '@wap/errors';
import express, { type Router } from 'express';

/** Where the build lands beside the gateway's compiled code: dist/console (this file is dist/console-server/static.js). */
export const DEFAULT_CONSOLE_DIR = path.resolve(__dirname, '..', 'console');

export function staticConsole(dir: string): Router {
  const router = express.Router();
  const index = path.join(dir, 'index.html');
  // Vite names each asset by its content's hash: a new build is new URLs.
  router.use(
    '/assets',
    express.static(path.join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false, redirect: false }),
  );
  // An asset that is not there is not the app: a stale page's old hash gets 404, not index.html.
  router.use('/assets', (_req, _res, next) => next(new ApiError('not_found')));
  // Files of the build's root (a favicon): revalidated, since their names do not change.
  router.use(
    express.static(dir, {
      index: false,
      redirect: false,
      cacheControl: false,
      setHeaders: (res, file) => res.setHeader('Cache-Control', file === index ? 'no-store' : 'no-cache'),
    }),
  );
  router.get('/{*path}', (_req, res, next) => {
    // Looked up on each request: a build made while the gateway runs is served, one removed is 404.
    if (!existsSync(index)) return next(new ApiError('not_found'));
    res.set('Cache-Control', 'no-store').sendFile(index, (err) => {
      if (err && !res.headersSent) next(new ApiError('not_found'));
    });
  });
  return router;
}
