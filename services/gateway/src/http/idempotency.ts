import { createHash } from 'node:crypto';
import { ApiError } from '@wap/errors';
import type { RequestHandler, Response } from 'express';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { Principal } from '../identity/store.js';

/** A key the gateway accepts: 1 to 255 visible ASCII characters (the OpenAPI document says the same). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const WAIT_FOR_FIRST_MS = 10_000;

/** What makes two requests "the same" for a key: route and body. */
function fingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${JSON.stringify(body ?? null)}`)
    .digest('hex');
}

function replay(res: Response, statusCode: number, body: unknown) {
  res.setHeader('Idempotent-Replayed', 'true');
  res.status(statusCode).json(body);
}

/**
 * `Idempotency-Key` on POST: the first request with a key does the work and its
 * response (2xx or 4xx) is kept for 24 hours; a retry with the same key and
 * body gets that response without the work being done again; the same key
 * with another body is refused. A retry that arrives while the first is still
 * running waits for it. A 5xx is not kept, so the retry does the work.
 */
export function idempotency(db: PrismaClient): RequestHandler {
  return async (req, res, next) => {
    const key = req.header('idempotency-key');
    if (req.method !== 'POST' || key === undefined) return next();
    try {
      if (!IDEMPOTENCY_KEY.test(key)) {
        throw new ApiError('bad_request', {
          issues: [{ path: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }],
        });
      }
      const { workspaceId } = res.locals.principal as Principal;
      const print = fingerprint(req.method, req.path, req.body);
      const created = await db.idempotencyRecord.createMany({
        data: [{ workspaceId, key, fingerprint: print }],
        skipDuplicates: true,
      });
      if (created.count === 0) {
        const deadline = Date.now() + WAIT_FOR_FIRST_MS;
        for (;;) {
          const first = await db.idempotencyRecord.findUnique({ where: { workspaceId_key: { workspaceId, key } } });
          if (!first || first.createdAt.getTime() < Date.now() - 86_400_000) {
            // The first failed with a 5xx, or its record lapsed: take its place.
            if (first)
              await db.idempotencyRecord.deleteMany({ where: { workspaceId, key, createdAt: first.createdAt } });
            return idempotency(db)(req, res, next);
          }
          if (first.fingerprint !== print) {
            throw new ApiError('bad_request', {
              issues: [{ path: 'Idempotency-Key', message: 'was already used with a different request' }],
            });
          }
          if (first.done) return replay(res, first.statusCode ?? 200, first.body);
          if (Date.now() > deadline) {
            res.setHeader('Retry-After', '1');
            throw new ApiError('concurrency_limit', {
              kind: 'idempotency_key',
              limit: 1,
              active: 1,
              retryAfterSeconds: 1,
            });
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      const json = res.json.bind(res);
      res.json = (body: unknown) => {
        const settle =
          res.statusCode >= 500
            ? db.idempotencyRecord.delete({ where: { workspaceId_key: { workspaceId, key } } })
            : db.idempotencyRecord.update({
                where: { workspaceId_key: { workspaceId, key } },
                data: { done: true, statusCode: res.statusCode, body: (body ?? null) as Prisma.InputJsonValue },
              });
        // Answer only once the record is kept, so a retry right after sees it.
        settle.then(
          () => json(body),
          () => json(body),
        );
        return res;
      };
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** Drops records older than a day; called now and then by the gateway. */
export async function expireIdempotencyRecords(db: PrismaClient): Promise<number> {
  const { count } = await db.idempotencyRecord.deleteMany({
    where: { createdAt: { lt: new Date(Date.now() - 86_400_000) } },
  });
  return count;
}
