// Concurrent-browser slot leases (migration *_ledger_slots_and_sweep).
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { callLedger } from './call.js';

export class SlotStore {
  constructor(private readonly pool: pg.Pool) {}

  acquire(workspaceId: string, holder: string, ttlSeconds: number, now: Date) {
    return callLedger<{ lease_id: string; expires_at: number; limit: number; active: number }>(
      this.pool,
      'ledger_acquire_slot',
      [workspaceId, holder, ttlSeconds, now, randomUUID()],
    );
  }

  renew(leaseId: string, ttlSeconds: number, now: Date) {
    return callLedger<{ expires_at: number }>(this.pool, 'ledger_renew_slot', [leaseId, ttlSeconds, now]);
  }

  /** The workspace's plan limit and its live leases, oldest first; undefined for an unknown workspace. */
  async list(workspaceId: string, now: Date) {
    const account = await this.pool.query<{ slot_limit: number }>(
      'SELECT "slot_limit" FROM "accounts" WHERE "workspace_id" = $1',
      [workspaceId],
    );
    const limit = account.rows[0]?.slot_limit;
    if (limit === undefined) return undefined;
    const { rows } = await this.pool.query<{ id: string; holder: string; created_at: Date; expires_at: Date }>(
      `SELECT "id", "holder", "created_at", "expires_at" FROM "slot_leases"
        WHERE "workspace_id" = $1 AND "expires_at" > $2 ORDER BY "created_at", "id"`,
      [workspaceId, now],
    );
    return { limit, leases: rows };
  }

  /** Frees the slot; releasing an unknown or lapsed lease is a no-op. */
  async release(leaseId: string): Promise<void> {
    await this.pool.query('DELETE FROM "slot_leases" WHERE "id" = $1', [leaseId]);
  }
}
