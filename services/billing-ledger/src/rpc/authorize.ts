import type { ledger } from '@wap/proto';
import { requestHash } from '../domain/idempotency.js';
import { timestampOfMs } from '../views/convert.js';
import { accepted } from '../views/refusal.js';
import { clocked, type LedgerDeps } from './deps.js';
import { Issues } from './parse.js';

/** A hold nobody resolves is released after this long unless the caller asks otherwise. */
export const DEFAULT_HOLD_TTL_SECONDS = 15 * 60;

export const authorize = (deps: LedgerDeps) => async (req: ledger.AuthorizeRequest) => {
  const issues = new Issues();
  const workspaceId = issues.text('workspace_id', req.workspaceId, { max: 128 });
  const key = issues.text('idempotency_key', req.idempotencyKey, { max: 255 });
  const capability = issues.text('capability', req.capability, { max: 64 });
  const reference = issues.text('reference', req.reference, { min: 0, max: 256 });
  const amountMc = issues.amount('millicredits', req.millicredits);
  const ttlSeconds = issues.ttl('ttl_seconds', req.ttlSeconds, DEFAULT_HOLD_TTL_SECONDS);
  issues.throwIfAny();
  const hash = requestHash('authorize', { workspaceId, capability, reference, amountMc, ttlSeconds });
  const answer = accepted(
    await deps.money.authorize(
      { workspaceId, key, hash, capability, reference, amountMc, ttlSeconds },
      clocked(deps.clock),
    ),
    workspaceId,
  );
  return {
    holdId: answer.hold_id,
    millicredits: BigInt(answer.millicredits),
    expiresAt: timestampOfMs(answer.expires_at),
  };
};
