import type { ledger } from '@wap/proto';
import { decodeCursor, pageLimit, pageOf } from '@wap/rpc';
import { timestamp, usageSummary } from '../views/convert.js';
import type { LedgerDeps } from './deps.js';
import { Issues } from './parse.js';

/** The workspace's billable calls (each Settle or Charge), newest first, a page at a time. */
export const listCalls = (deps: LedgerDeps) => async (req: ledger.ListCallsRequest) => {
  const issues = new Issues();
  const workspaceId = issues.text('workspace_id', req.workspaceId, { max: 128 });
  issues.throwIfAny();
  const limit = pageLimit(req.limit);
  const after = req.cursor ? decodeCursor(req.cursor) : undefined;
  // One row more than the page tells whether another page follows.
  const rows = await deps.reads.calls(workspaceId, limit + 1, after);
  const { page, nextCursor } = pageOf(rows, limit, (r) => r);
  return {
    calls: page.map((r) => ({
      id: r.id,
      at: timestamp(r.at),
      capability: r.capability,
      reference: r.reference,
      usage: usageSummary(r.usage),
    })),
    nextCursor,
  };
};
