import type { ledger } from '@wap/proto';
import type { LedgerDeps } from './deps.js';
import { requireId } from './parse.js';

/** Frees the slot at once; releasing twice, or after the lease lapsed, is a no-op. */
export const releaseSlot = (deps: LedgerDeps) => async (req: ledger.ReleaseSlotRequest) => {
  await deps.slots.release(requireId('slot_lease', req.leaseId));
  return {};
};
