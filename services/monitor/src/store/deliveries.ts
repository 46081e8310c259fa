// The notifications' outbox (docs/monitors.md, "Delivery"): pending deliveries
// claimed with SKIP LOCKED by whichever replica polls first, and each attempt
// written back on its row.
import type { Delivery, Monitor, PrismaClient, Snapshot } from '../generated/prisma/client.js';

export class DeliveryStore {
  constructor(private readonly db: PrismaClient) {}

  /** Up to `limit` deliveries due now, leased for `leaseMs` (their next attempt moved past the lease). */
  claim(limit: number, leaseMs: number, now = new Date()): Promise<Delivery[]> {
    return this.db.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt <= ${now}
         ORDER BY next_attempt LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
      const ids = rows.map((r) => r.id);
      if (ids.length === 0) return [];
      const until = new Date(now.getTime() + leaseMs);
      await tx.delivery.updateMany({ where: { id: { in: ids } }, data: { nextAttempt: until, leaseUntil: until } });
      return tx.delivery.findMany({ where: { id: { in: ids } } });
    });
  }

  /** What a delivery announces: its monitor and the snapshot that changed, while both exist. */
  async subject(delivery: Delivery): Promise<{ monitor: Monitor; snapshot: Snapshot } | undefined> {
    const monitor = await this.db.monitor.findUnique({ where: { id: delivery.monitorId } });
    const snapshot = await this.db.snapshot.findUnique({ where: { id: delivery.snapshotId } });
    return monitor && snapshot ? { monitor, snapshot } : undefined;
  }

  /** Writes an attempt's outcome: its count, its log, where the delivery stands and when it is tried next. */
  async attempted(
    id: string,
    outcome: { attempts: number; log: object[]; status: 'delivered' | 'pending' | 'failed'; nextAttempt: Date },
  ): Promise<void> {
    await this.db.delivery.update({ where: { id }, data: { ...outcome, leaseUntil: null, updatedAt: new Date() } });
  }
}
