import type { ledger } from '@wap/proto';
import { timestampOfMs } from '../views/convert.js';
import { accepted } from '../views/refusal.js';
import { DEFAULT_LEASE_TTL_SECONDS } from './acquire-slot.js';
import type { LedgerDeps } from './deps.js';
import { Issues, requireId } from './parse.js';

/** Extends a live lease; a lapsed one is gone (not_found) and must be acquired again. */
export const renewSlot = (deps: LedgerDeps) => async (req: ledger.RenewSlotRequest) => {
  const leaseId = requireId('slot_lease', req.leaseId);
  const issues = new Issues();
  const ttlSeconds = issues.ttl('ttl_seconds', req.ttlSeconds, DEFAULT_LEASE_TTL_SECONDS);
  issues.throwIfAny();
  const answer = accepted(await deps.slots.renew(leaseId, ttlSeconds, deps.clock()), leaseId);
  return { expiresAt: timestampOfMs(answer.expires_at) };
};
