// The web console (docs/console.md) at /console: its JSON API under
// /console/api, signed in by a same-origin cookie, and the Preact app's
// build. Every response under /console carries the console's strict policy.
import { ApiError } from '@wap/errors';
import express, { type RequestHandler, type Router } from 'express';
import { keysRoutes } from './keys-routes.js';
import { membersRoutes } from './members-routes.js';
import { type ConsoleApiDeps, sessionRoutes } from './session-routes.js';
import { staticConsole } from './static.js';

export interface ConsoleDeps extends ConsoleApiDeps {
  /** The app's build: index.html and assets/. */
  dir: string;
}

/** The app's own scripts, styles and requests only; framed by nobody; frames (replays) from the gateway only. */
export const CONSOLE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const consoleHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': CONSOLE_POLICY,
    // For browsers that predate frame-ancestors.
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'same-origin',
    'X-Content-Type-Options': 'nosniff',
  });
  next();
};

export function consoleRouter(deps: ConsoleDeps): Router {
  const router = express.Router();
  const api = express.Router();
  api.use(sessionRoutes(deps), keysRoutes(deps), membersRoutes(deps));
  // Not the app's index.html: a script asking the API for something unknown gets the Error object.
  api.use((_req, _res, next) => next(new ApiError('not_found')));
  router.use('/console', consoleHeaders);
  router.use('/console/api', api);
  router.use('/console', staticConsole(deps.dir));
  return router;
}
