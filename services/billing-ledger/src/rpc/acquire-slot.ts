import type { ledger } from '@wap/proto';
import { timestampOfMs } from '../views/convert.js';
import { accepted } from '../views/refusal.js';
import type { LedgerDeps } from './deps.js';
import { Issues } from './parse.js';

/** A lease lapses this long after its last acquire or renew unless the caller asks otherwise. */
export const DEFAULT_LEASE_TTL_SECONDS = 60;

export const acquireSlot = (deps: LedgerDeps) => async (req: ledger.AcquireSlotRequest) => {
  const issues = new Issues();
  const workspaceId = issues.text('workspace_id', req.workspaceId, { max: 128 });
  const holder = issues.text('holder', req.holder, { max: 255 });
  const ttlSeconds = issues.ttl('ttl_seconds', req.ttlSeconds, DEFAULT_LEASE_TTL_SECONDS);
  issues.throwIfAny();
  const answer = accepted(await deps.slots.acquire(workspaceId, holder, ttlSeconds, deps.clock()), workspaceId);
  return {
    leaseId: answer.lease_id,
    expiresAt: timestampOfMs(answer.expires_at),
    limit: answer.limit,
    active: answer.active,
  };
};
