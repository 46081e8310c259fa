import { ApiError } from '@wap/errors';
import type { ledger } from '@wap/proto';
import { timestamp } from '../views/convert.js';
import type { LedgerDeps } from './deps.js';
import { Issues } from './parse.js';

/** Who holds the workspace's browser slots now, for operators: live leases only, oldest first. */
export const listSlots = (deps: LedgerDeps) => async (req: ledger.ListSlotsRequest) => {
  const issues = new Issues();
  const workspaceId = issues.text('workspace_id', req.workspaceId, { max: 128 });
  issues.throwIfAny();
  const listed = await deps.slots.list(workspaceId, deps.clock());
  if (!listed) throw new ApiError('not_found', { resource: 'account', id: workspaceId });
  return {
    limit: listed.limit,
    holders: listed.leases.map((l) => ({
      leaseId: l.id,
      holder: l.holder,
      acquiredAt: timestamp(l.created_at),
      expiresAt: timestamp(l.expires_at),
    })),
  };
};
