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

  /** Frees the slot; releasing an unknown or lapsed lease is a no-op. */
  async release(leaseId: string): Promise<void> {
    await this.pool.query('DELETE FROM "slot_leases" WHERE "id" = $1', [leaseId]);
  }
}
