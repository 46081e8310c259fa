// A run's events: one sequence per run (`event_seq` on the run, taken in the
// statement that inserts the event), so the loop and the RPCs that write them
// (cancel, the pauses' verbs) never leave a gap or a double between them.
import type { Prisma } from '../generated/prisma/client.js';
import type { AgentDatabase } from './database.js';

export type Tx = Prisma.TransactionClient;

export interface NewEvent {
  level: 'summary' | 'step' | 'debug';
  kind: string;
  message: string;
  data?: unknown;
}

/** One event with the run's next sequence number; with `replica`, only while it holds the claim. */
export async function appendEvent(tx: Tx | AgentDatabase, runId: string, replica: string | undefined, e: NewEvent) {
  const data = e.data === undefined ? null : JSON.stringify(e.data);
  const rows = await tx.$queryRaw<{ seq: bigint }[]>`
    WITH s AS (
      UPDATE agent_runs SET event_seq = event_seq + 1
       WHERE id = ${runId}::uuid AND (${replica ?? null}::text IS NULL OR claimed_by = ${replica ?? null})
      RETURNING event_seq)
    INSERT INTO agent_events (run_id, seq, level, kind, message, data)
    SELECT ${runId}::uuid, event_seq, ${e.level}, ${e.kind}, ${e.message.slice(0, 2_000)}, ${data}::jsonb FROM s
    RETURNING seq`;
  return rows.length > 0;
}
