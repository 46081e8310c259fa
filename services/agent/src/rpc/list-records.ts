import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ApiError } from '@wap/errors';
import { agent } from '@wap/proto';
import type { AgentRpcDeps } from './deps.js';
import { invalid, runRef } from './parse.js';

/** A cursor is the last sequence read, opaque to callers. */
const encodeCursor = (seq: bigint) => Buffer.from(`r${seq}`).toString('base64url');
function decodeCursor(cursor: string): bigint {
  if (!cursor) return 0n;
  const text = Buffer.from(cursor, 'base64url').toString();
  if (!/^r\d{1,18}$/.test(text)) invalid('cursor', 'not a cursor of this run');
  return BigInt(text.slice(1));
}

/**
 * agent.ListRecords: what the run appended, oldest first, during the run and
 * after any ending. `next_cursor` is empty once the run is settled and all is read.
 */
export function listRecords({ store }: AgentRpcDeps) {
  return async (req: agent.ListRecordsRequest): Promise<agent.ListRecordsResponse> => {
    const ref = runRef(req);
    const after = decodeCursor(req.cursor);
    const size = req.pageSize > 0 ? Math.min(req.pageSize, 500) : 100;
    const row = await store.get(ref.workspaceId, ref.runId);
    if (!row) throw new ApiError('not_found');
    const records = await store.records(row.id, after, size);
    const last = records.at(-1)?.seq ?? after;
    const more = records.length === size || row.status !== 'settled' || last < row.recordSeq;
    return create(agent.ListRecordsResponseSchema, {
      records: records.map((r) => ({ seq: r.seq, at: timestampFromDate(r.at), dataJson: JSON.stringify(r.data) })),
      nextCursor: more ? encodeCursor(last) : '',
      status: row.status,
    });
  };
}
