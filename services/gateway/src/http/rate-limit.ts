import { ApiError } from '@wap/errors';
import { PLANS } from '@wap/plans';
import type { RequestHandler } from 'express';
import pg from 'pg';
import type { Principal } from '../identity/store.js';

const WINDOW_MS = 60_000;

interface Take {
  allowed: boolean;
  remaining: number;
  reset_ms: number;
}

/**
 * The plan's requests per minute per workspace, counted in the gateway's
 * Postgres so every replica shares one budget (docs/decisions/0005). Headers
 * follow the IETF RateLimit fields draft: `RateLimit-Policy` and `RateLimit`.
 */
/** Connections for the limiter alone, with asynchronous commit: no WAL flush wait per request. */
export function rateLimitPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 6, options: '-c synchronous_commit=off' });
  pool.on('error', () => undefined);
  return pool;
}

export function rateLimit(pool: pg.Pool): RequestHandler {
  return async (_req, res, next) => {
    try {
      const principal = res.locals.principal as Principal;
      const limit = PLANS[principal.plan].requestsPerMinute;
      // One statement, one round trip; the pool's sessions commit asynchronously
      // (see rateLimitPool): the counter may lose a few increments in a crash, it is not money.
      const { rows } = await pool.query<Take>('SELECT * FROM rate_limit_take($1::uuid, $2, $3)', [
        principal.workspaceId,
        limit,
        WINDOW_MS,
      ]);
      const take = rows[0];
      if (!take) throw new Error('rate_limit_take returned no row');
      const resetSeconds = Math.max(1, Math.ceil(take.reset_ms / 1000));
      res.setHeader('RateLimit-Policy', `"workspace";q=${limit};w=${WINDOW_MS / 1000}`);
      res.setHeader('RateLimit', `"workspace";r=${take.remaining};t=${resetSeconds}`);
      if (!take.allowed) {
        res.setHeader('Retry-After', String(resetSeconds));
        throw new ApiError('concurrency_limit', {
          kind: 'requests_per_minute',
          limit,
          active: limit,
          retryAfterSeconds: resetSeconds,
        });
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}
