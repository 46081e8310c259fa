// Deleting sessions and their bytes (docs/sessions.md): one session at its
// workspace's request, and every session past the retention. A session
// deleted on request keeps a row marked `deleted`, without its options, until
// the retention passes, so a snapshot or chunk still on its way cannot bring
// it back (RecordingStore.append and SessionRows.apply both respect it).
import type { Sql } from '@wap/db/sql';
import type { SessionRecorderDatabase } from './database.js';

/** What went with a session. */
export interface Removed {
  chunks: number;
  bytes: bigint;
  networkRequests: number;
}

/** Why a session was not deleted: not the workspace's (or gone already), or still running. */
export type NotDeleted = 'not_found' | 'live';

export class SessionPurge {
  constructor(private readonly db: SessionRecorderDatabase) {}

  /** Deletes an ended session's recording and network log, and leaves its row as a tombstone. */
  deleteOne(workspaceId: string, sessionId: string): Promise<Removed | NotDeleted> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<{ status: string }>`
        SELECT status FROM sessions WHERE id = ${sessionId}::uuid AND workspace_id = ${workspaceId} FOR UPDATE`;
      if (!row || row.status === 'deleted') return 'not_found';
      if (row.status === 'live') return 'live';
      const removed = await removeBytes(tx, sessionId);
      await tx.execute`UPDATE sessions SET status = 'deleted', options = '{}'::jsonb, updated_at = now()
                            WHERE id = ${sessionId}::uuid`;
      return removed;
    });
  }

  /**
   * Up to `limit` sessions that ended (or were deleted) before `cutoff`, and
   * recordings last written before it that no session row claims: their rows
   * and bytes deleted for good. Answers the ids, whose stream subjects the
   * caller purges.
   */
  async expire(cutoff: Date, limit: number): Promise<string[]> {
    const rows = await this.db.query<{ id: string }>`
      (SELECT id::text AS id FROM sessions
        WHERE status IN ('ended', 'deleted') AND ended_at < ${cutoff}
        ORDER BY ended_at LIMIT ${limit})
      UNION
      (SELECT r.session_id::text AS id FROM recordings r
        WHERE r.updated_at < ${cutoff} AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = r.session_id)
        LIMIT ${limit})`;
    const ids = rows.map((r) => r.id);
    for (const id of ids)
      await this.db.transaction(async (tx) => {
        await removeBytes(tx, id);
        await tx.execute`DELETE FROM sessions WHERE id = ${id}::uuid`;
      });
    return ids;
  }
}

async function removeBytes(tx: Sql, sessionId: string): Promise<Removed> {
  const [recording] = await tx.query<{ chunks: number; bytes: bigint }>`
    DELETE FROM recordings WHERE session_id = ${sessionId}::uuid RETURNING chunks, bytes`;
  await tx.execute`DELETE FROM recording_chunks WHERE session_id = ${sessionId}::uuid`;
  const networkRequests = await tx.execute`DELETE FROM network_requests WHERE session_id = ${sessionId}::uuid`;
  return { chunks: recording?.chunks ?? 0, bytes: recording?.bytes ?? 0n, networkRequests };
}
