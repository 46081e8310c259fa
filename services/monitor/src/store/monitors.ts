// The monitors and their checks (docs/monitors.md, "Scheduling"): due rows
// are claimed with FOR UPDATE SKIP LOCKED, their next check moved on and a
// check row written in the same transaction, so any number of replicas share
// the work and none takes what another holds; a check whose replica died
// (its lease lapsed unfinished) is taken again.
import { randomUUID } from 'node:crypto';
import { nextCheckAt, type Schedule } from '../domain/schedule.js';
import type { Check, Monitor, PrismaClient } from '../generated/prisma/client.js';

export type MonitorRow = Monitor;
export type CheckRow = Check;

export interface Claimed {
  check: CheckRow;
  monitor: MonitorRow;
}

export class MonitorStore {
  constructor(private readonly db: PrismaClient) {}

  /**
   * Up to `limit` monitors due now, claimed by `replica` for `leaseMs`: each
   * gets a check row and its next check time (the next slot after now, so an
   * outage is made up once).
   */
  claimDue(replica: string, limit: number, leaseMs: number, now = new Date()): Promise<Claimed[]> {
    return this.db.$transaction(async (tx) => {
      const due = await tx.$queryRaw<MonitorRow[]>`
        SELECT id, workspace_id AS "workspaceId", url, schedule, watch, scrape, target_kind AS "targetKind",
               target_sealed AS "targetSealed", target_shown AS "targetShown", secret_sealed AS "secretSealed",
               created_at AS "createdAt", anchor_at AS "anchorAt", next_check_at AS "nextCheckAt",
               skipped_reason AS "skippedReason", last_check_at AS "lastCheckAt", last_status AS "lastStatus",
               last_changed AS "lastChanged", last_error_code AS "lastErrorCode"
          FROM monitors WHERE next_check_at <= ${now}
         ORDER BY next_check_at LIMIT ${limit}
           FOR UPDATE SKIP LOCKED`;
      const claimed: Claimed[] = [];
      for (const monitor of due) {
        const next = nextCheckAt(monitor.id, monitor.schedule as unknown as Schedule, now, monitor.anchorAt);
        await tx.monitor.update({ where: { id: monitor.id }, data: { nextCheckAt: next } });
        const check = await tx.check.create({
          data: {
            id: randomUUID(),
            monitorId: monitor.id,
            workspaceId: monitor.workspaceId,
            dueAt: monitor.nextCheckAt,
            claimedBy: replica,
            leaseUntil: new Date(now.getTime() + leaseMs),
          },
        });
        claimed.push({ check, monitor: { ...monitor, nextCheckAt: next } });
      }
      return claimed;
    });
  }

  /** Checks left unfinished by a replica whose lease lapsed, taken over by `replica` (same check id: billed once). */
  reclaimLapsed(replica: string, limit: number, leaseMs: number, now = new Date()): Promise<Claimed[]> {
    return this.db.$transaction(async (tx) => {
      const lapsed = await tx.$queryRaw<{ id: string }[]>`
        SELECT c.id FROM checks c JOIN monitors m ON m.id = c.monitor_id
         WHERE c.finished_at IS NULL AND c.lease_until <= ${now}
         ORDER BY c.lease_until LIMIT ${limit}
           FOR UPDATE OF c SKIP LOCKED`;
      const out: Claimed[] = [];
      for (const { id } of lapsed) {
        const check = await tx.check.update({
          where: { id },
          data: { claimedBy: replica, leaseUntil: new Date(now.getTime() + leaseMs) },
        });
        const monitor = await tx.monitor.findUnique({ where: { id: check.monitorId } });
        if (monitor) out.push({ check, monitor });
      }
      return out;
    });
  }

  /** Keeps `replica`'s unfinished checks its own for another `leaseMs` (they are still running). */
  async renew(replica: string, checkIds: string[], leaseMs: number, now = new Date()): Promise<void> {
    if (checkIds.length === 0) return;
    await this.db.check.updateMany({
      where: { id: { in: checkIds }, claimedBy: replica, finishedAt: null },
      data: { leaseUntil: new Date(now.getTime() + leaseMs) },
    });
  }

  /** Records how the check ended on it and on its monitor; false when the monitor is gone (deleted meanwhile). */
  async finish(
    check: CheckRow,
    outcome: { status: 'ok' | 'changed' | 'failed' | 'skipped'; errorCode?: string; skippedReason?: string },
  ): Promise<boolean> {
    const now = new Date();
    return this.db.$transaction(async (tx) => {
      await tx.check.update({
        where: { id: check.id },
        data: { finishedAt: now, status: outcome.status, errorCode: outcome.errorCode ?? null },
      });
      const updated = await tx.monitor.updateMany({
        where: { id: check.monitorId },
        data: {
          lastCheckAt: now,
          lastStatus: outcome.status,
          lastChanged: outcome.status === 'changed',
          lastErrorCode: outcome.errorCode ?? null,
          skippedReason: outcome.skippedReason ?? null,
        },
      });
      return updated.count === 1;
    });
  }
}
