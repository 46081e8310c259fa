import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '@wap/errors';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

/** A key the gateway accepts: 1 to 255 visible ASCII characters (the OpenAPI document says the same). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const KEEP_MS = 86_400_000;
const WAIT_FOR_FIRST_MS = 10_000;

/** An answer as kept for a key: what a retry gets back. */
export interface KeptAnswer {
  status: number;
  body: unknown;
}

/** What makes two requests "the same" for a key: the capability, its path values and its body. */
export function fingerprint(capability: string, params: unknown, body: unknown): string {
  return createHash('sha256')
    .update(`${capability}\n${JSON.stringify(params ?? null)}\n${JSON.stringify(body ?? null)}`)
    .digest('hex');
}

/**
 * The operation a keyed request stands for: the same workspace, key and request
 * give the same id, so a retry that does the work again (its first answer was a
 * 5xx, or never came) lands on the ledger's first charge instead of a second one.
 */
export function operationIdFor(workspaceId: string, key: string, print: string): string {
  return `idem_${createHash('sha256').update(`${workspaceId}\0${key}\0${print}`).digest('hex').slice(0, 40)}`;
}

/** A fresh operation for a request without an `Idempotency-Key`. */
export const newOperationId = () => `op_${randomUUID().replaceAll('-', '')}`;

export function checkKey(key: string): void {
  if (!IDEMPOTENCY_KEY.test(key))
    throw new ApiError('bad_request', {
      issues: [{ path: 'header.Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }],
    });
}

/**
 * `Idempotency-Key` records, one per workspace and key: the first request with
 * a key claims it, does the work and keeps its answer (2xx or 4xx) for 24
 * hours; a retry with the same request gets that answer without the work being
 * done again; the same key with another request is refused. A retry that
 * arrives while the first is still running waits for it. A 5xx is not kept, so
 * the retry does the work (under the same operation id, so it is billed once).
 */
export class IdempotencyStore {
  constructor(private readonly db: PrismaClient) {}

  /** Claims the key, or answers what the first request with it answered. */
  async claim(workspaceId: string, key: string, print: string): Promise<KeptAnswer | undefined> {
    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      const { count } = await this.db.idempotencyRecord.createMany({
        data: [{ workspaceId, key, fingerprint: print }],
        skipDuplicates: true,
      });
      if (count === 1) return undefined;
      const first = await this.db.idempotencyRecord.findUnique({ where: { workspaceId_key: { workspaceId, key } } });
      if (!first) continue; // the first failed with a 5xx meanwhile: claim again
      if (first.createdAt.getTime() < Date.now() - KEEP_MS) {
        await this.db.idempotencyRecord.deleteMany({ where: { workspaceId, key, createdAt: first.createdAt } });
        continue;
      }
      if (first.fingerprint !== print)
        throw new ApiError('bad_request', {
          issues: [{ path: 'header.Idempotency-Key', message: 'was already used with a different request' }],
        });
      if (first.done) return { status: first.statusCode ?? 200, body: first.body };
      if (Date.now() > deadline)
        throw new ApiError('concurrency_limit', { kind: 'idempotency_key', limit: 1, active: 1, retryAfterSeconds: 1 });
      await sleep(100);
    }
  }

  /** Keeps the first request's answer for its retries. */
  async keep(workspaceId: string, key: string, answer: KeptAnswer): Promise<void> {
    await this.db.idempotencyRecord.update({
      where: { workspaceId_key: { workspaceId, key } },
      data: { done: true, statusCode: answer.status, body: (answer.body ?? null) as Prisma.InputJsonValue },
    });
  }

  /** Gives the key up (the first request failed on our side): the next retry does the work. */
  async release(workspaceId: string, key: string): Promise<void> {
    await this.db.idempotencyRecord.deleteMany({ where: { workspaceId, key, done: false } });
  }

  /** Drops records older than a day; called now and then by the gateway. */
  async expire(): Promise<number> {
    const { count } = await this.db.idempotencyRecord.deleteMany({
      where: { createdAt: { lt: new Date(Date.now() - KEEP_MS) } },
    });
    return count;
  }
}
