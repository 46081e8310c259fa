// The notifications' outbox (docs/monitors.md, "Delivery"): pending deliveries
// claimed with SKIP LOCKED by whichever replica polls first, and each attempt
// written back on its row.
import type { Delivery, Monitor, Snapshot } from '../generated/prisma/client.js';
import type { MonitorDatabase } from './database.js';

export class DeliveryStore {
  constructor(private readonly db: MonitorDatabase) {}

  /** Up to `limit` deliveries due now, leased for `leaseMs` (their next attempt moved past the lease). */
  claim(limit: number, leaseMs: number, now = new Date()): Promise<Delivery[]> {
    const until = new Date(now.getTime() + leaseMs);
    return this.db.query<Delivery>`
      UPDATE deliveries SET next_attempt = ${until}, lease_until = ${until}
       WHERE id IN (SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt <= ${now}
                     ORDER BY next_attempt LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING *`;
  }

  /** What a delivery announces: its monitor and the snapshot that changed, while both exist. */
  async subject(delivery: Delivery): Promise<{ monitor: Monitor; snapshot: Snapshot } | undefined> {
    const [monitor] = await this.db.query<Monitor>`SELECT * FROM monitors WHERE id = ${delivery.monitorId}::uuid`;
    const [snapshot] = await this.db.query<Snapshot>`SELECT * FROM snapshots WHERE id = ${delivery.snapshotId}::uuid`;
    return monitor && snapshot ? { monitor, snapshot } : undefined;
  }

  /** Writes an attempt's outcome: its count, its log, where the delivery stands and when it is tried next. */
  async attempted(
    id: string,
    outcome: { attempts: number; log: object[]; status: 'delivered' | 'pending' | 'failed'; nextAttempt: Date },
  ): Promise<void> {
    await this.db.execute`
      UPDATE deliveries SET attempts = ${outcome.attempts}, log = ${JSON.stringify(outcome.log)}::jsonb,
             status = ${outcome.status}, next_attempt = ${outcome.nextAttempt}, lease_until = NULL, updated_at = now()
       WHERE id = ${id}::uuid`;
  }
}
