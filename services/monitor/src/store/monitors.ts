// The monitors and their checks (docs/monitors.md, "Scheduling"): due rows
// are claimed with FOR UPDATE SKIP LOCKED, their next check moved on and a
// check row written in the same transaction, so any number of replicas share
// the work and none takes what another holds; a check whose replica died
// (its lease lapsed unfinished) is taken again. A paused workspace's monitors
// are never claimed (store/pauses.ts), nor those past its plan's cap
// (store/plan-caps.ts).
import { randomUUID } from 'node:crypto';
import { ApiError } from '@wap/errors';
import { nextCheckAt, type Schedule } from '../domain/schedule.js';
import type { Check, Delivery, Monitor, Prisma, PrismaClient, Snapshot } from '../generated/prisma/client.js';

export type MonitorRow = Monitor;
export type CheckRow = Check;

export interface Claimed {
  check: CheckRow;
  monitor: MonitorRow;
}

/**
 * Holds the workspace's lock on its monitors until the transaction ends: a
 * creation, and a pause or resume of its checks, of one workspace never interleave.
 */
export async function lockWorkspace(tx: Prisma.TransactionClient, workspaceId: string): Promise<void> {
  await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtextextended(${`monitors:${workspaceId}`}, 0))`;
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
               last_changed AS "lastChanged", last_error_code AS "lastErrorCode", last_sha256 AS "lastSha256"
          FROM monitors WHERE next_check_at <= ${now} AND plan_paused_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM workspace_pauses p WHERE p.workspace_id = monitors.workspace_id)
         ORDER BY next_check_at LIMIT ${limit}
           FOR UPDATE SKIP LOCKED`;
      if (due.length === 0) return [];
      // One statement each for the next slots and the check rows, whatever the batch's size.
      const claimed: Claimed[] = due.map((monitor) => {
        const next = nextCheckAt(monitor.id, monitor.schedule as unknown as Schedule, now, monitor.anchorAt);
        const check: CheckRow = {
          id: randomUUID(),
          monitorId: monitor.id,
          workspaceId: monitor.workspaceId,
          dueAt: monitor.nextCheckAt,
          claimedBy: replica,
          startedAt: now,
          leaseUntil: new Date(now.getTime() + leaseMs),
          finishedAt: null,
          status: null,
          errorCode: null,
        };
        return { check, monitor: { ...monitor, nextCheckAt: next } };
      });
      await tx.$executeRaw`
        UPDATE monitors SET next_check_at = v.next
          FROM unnest(${claimed.map((c) => c.monitor.id)}::uuid[],
                      ${claimed.map((c) => c.monitor.nextCheckAt)}::timestamptz[]) AS v(id, next)
         WHERE monitors.id = v.id`;
      await tx.check.createMany({ data: claimed.map((c) => c.check) });
      return claimed;
    });
  }

  /**
   * Checks left unfinished by a replica whose lease lapsed, taken over by
   * `replica` (same check id: billed once). One statement when there are none,
   * as on almost every pass.
   */
  async reclaimLapsed(replica: string, limit: number, leaseMs: number, now = new Date()): Promise<Claimed[]> {
    const taken = await this.db.$queryRaw<{ id: string }[]>`
      UPDATE checks SET claimed_by = ${replica}, lease_until = ${new Date(now.getTime() + leaseMs)}
       WHERE id IN (SELECT c.id FROM checks c
                     WHERE c.finished_at IS NULL AND c.lease_until <= ${now}
                     ORDER BY c.lease_until LIMIT ${limit}
                       FOR UPDATE SKIP LOCKED)
      RETURNING id`;
    if (taken.length === 0) return [];
    const checks = await this.db.check.findMany({ where: { id: { in: taken.map((t) => t.id) } } });
    const monitors = await this.db.monitor.findMany({ where: { id: { in: checks.map((c) => c.monitorId) } } });
    const byId = new Map(monitors.map((m) => [m.id, m]));
    const out: Claimed[] = [];
    for (const check of checks) {
      const monitor = byId.get(check.monitorId);
      // A deleted monitor's check has nothing left to do.
      if (monitor) out.push({ check, monitor });
      else await this.db.check.deleteMany({ where: { id: check.id } });
    }
    return out;
  }

  /** When the next monitor falls due, if any does (a paused workspace's, and those past its plan, are not due). */
  async nextDueAt(): Promise<Date | undefined> {
    const [first] = await this.db.$queryRaw<{ at: Date }[]>`
      SELECT next_check_at AS at FROM monitors
       WHERE plan_paused_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM workspace_pauses p WHERE p.workspace_id = monitors.workspace_id)
       ORDER BY next_check_at LIMIT 1`;
    return first?.at;
  }

  /**
   * Creates the monitor, unless its workspace keeps `cap` monitors already:
   * cap_exceeded, counted under the workspace's lock, so creations at the same
   * moment cannot pass the cap together. A paused workspace's new monitor
   * waits with its others.
   */
  create(data: Prisma.MonitorUncheckedCreateInput & { workspaceId: string; nextCheckAt: Date }, cap: number) {
    return this.db.$transaction(async (tx) => {
      await lockWorkspace(tx, data.workspaceId);
      const kept = await tx.monitor.count({ where: { workspaceId: data.workspaceId } });
      if (kept >= cap) throw new ApiError('cap_exceeded', { cap, spent: kept, needed: 1 });
      const pause = await tx.workspacePause.findUnique({ where: { workspaceId: data.workspaceId } });
      return tx.monitor.create({
        data: pause
          ? { ...data, skippedReason: 'credits', nextCheckAt: new Date(Math.max(+data.nextCheckAt, +pause.probeAt)) }
          : data,
      });
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

  /**
   * Records how the check ended on it and on its monitor, in one statement;
   * false when the monitor is gone (deleted meanwhile).
   */
  async finish(
    check: CheckRow,
    outcome: { status: 'ok' | 'changed' | 'failed' | 'skipped'; errorCode?: string; skippedReason?: string },
  ): Promise<boolean> {
    const rows = await this.db.$queryRaw<{ id: string }[]>`
      WITH done AS (
        UPDATE checks SET finished_at = now(), status = ${outcome.status}, error_code = ${outcome.errorCode ?? null}
         WHERE id = ${check.id}::uuid RETURNING monitor_id)
      UPDATE monitors SET last_check_at = now(), last_status = ${outcome.status},
             last_changed = ${outcome.status === 'changed'}, last_error_code = ${outcome.errorCode ?? null},
             skipped_reason = ${outcome.skippedReason ?? null}
        FROM done WHERE monitors.id = done.monitor_id RETURNING monitors.id`;
    return rows.length === 1;
  }

  /** The id of the monitor's snapshot taken just before `takenAt`, if any: what a change is compared with. */
  async snapshotBefore(monitorId: string, takenAt: Date): Promise<string | undefined> {
    const before = await this.db.snapshot.findFirst({
      where: { monitorId, takenAt: { lt: takenAt } },
      orderBy: { takenAt: 'desc' },
      select: { id: true },
    });
    return before?.id;
  }

  /** Up to `take` of the workspace's monitors, newest first, after the cursor's position when given. */
  list(workspaceId: string, take: number, after?: { at: Date; id: string }): Promise<MonitorRow[]> {
    return this.db.monitor.findMany({
      where: {
        workspaceId,
        ...(after && { OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }] }),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take,
    });
  }

  /** The last `shown` deliveries of each monitor, newest first. */
  async recentDeliveries(monitorIds: string[], shown: number): Promise<Map<string, Delivery[]>> {
    const byMonitor = new Map<string, Delivery[]>();
    if (monitorIds.length === 0) return byMonitor;
    const ids = await this.db.$queryRaw<{ id: string }[]>`
      SELECT d.id FROM unnest(${monitorIds}::uuid[]) AS m(id)
       CROSS JOIN LATERAL (SELECT id FROM deliveries WHERE monitor_id = m.id
                            ORDER BY created_at DESC LIMIT ${shown}) d`;
    const rows = await this.db.delivery.findMany({
      where: { id: { in: ids.map((r) => r.id) } },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    });
    for (const row of rows) byMonitor.set(row.monitorId, [...(byMonitor.get(row.monitorId) ?? []), row]);
    return byMonitor;
  }

  /** Deletes the workspace's monitor with its snapshots, deliveries and checks; false when it has none by that id. */
  delete(workspaceId: string, id: string): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      const { count } = await tx.monitor.deleteMany({ where: { id, workspaceId } });
      if (count === 0) return false;
      await tx.snapshot.deleteMany({ where: { monitorId: id } });
      await tx.delivery.deleteMany({ where: { monitorId: id } });
      await tx.check.deleteMany({ where: { monitorId: id } });
      return true;
    });
  }

  /** A snapshot with its monitor, while both exist. */
  async snapshot(id: string): Promise<{ snapshot: Snapshot; monitor: MonitorRow } | undefined> {
    const snapshot = await this.db.snapshot.findUnique({ where: { id } });
    const monitor = snapshot && (await this.db.monitor.findUnique({ where: { id: snapshot.monitorId } }));
    return snapshot && monitor ? { snapshot, monitor } : undefined;
  }

  /** The text of the monitor's newest snapshot: what a changed page is compared with. */
  async lastSnapshotText(monitorId: string): Promise<string | undefined> {
    const last = await this.db.snapshot.findFirst({
      where: { monitorId },
      orderBy: { takenAt: 'desc' },
      select: { text: true },
    });
    return last?.text;
  }

  /**
   * Keeps what a check found: the page's digest on its monitor, a snapshot, and
   * for a change its diff and a pending notification, in one transaction. A
   * monitor deleted while its page loaded keeps nothing.
   */
  keepSnapshot(found: {
    monitorId: string;
    checkId: string;
    text: string;
    sha256: string;
    /** The words added and removed since the last snapshot; absent for a first one. */
    diff?: object;
  }): Promise<void> {
    return this.db.$transaction(async (tx) => {
      const { count } = await tx.monitor.updateMany({
        where: { id: found.monitorId },
        data: { lastSha256: found.sha256 },
      });
      if (count === 0) return;
      const snapshotId = randomUUID();
      await tx.snapshot.create({
        data: {
          id: snapshotId,
          monitorId: found.monitorId,
          checkId: found.checkId,
          text: found.text,
          sha256: found.sha256,
          ...(found.diff && { diff: { ...found.diff } }),
        },
      });
      if (found.diff)
        await tx.delivery.create({
          data: {
            id: randomUUID(),
            monitorId: found.monitorId,
            snapshotId,
            status: 'pending',
            nextAttempt: new Date(),
          },
        });
    });
  }
}
