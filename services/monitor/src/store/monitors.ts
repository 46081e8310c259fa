// The monitors and their checks (docs/monitors.md, "Scheduling"): due rows
// are claimed with FOR UPDATE SKIP LOCKED, their next check moved on and a
// check row written in the same transaction, so any number of replicas share
// the work and none takes what another holds; a check whose replica died
// (its lease lapsed unfinished) is taken again. A paused workspace's monitors
// are never claimed (store/pauses.ts), nor those past its plan's cap
// (store/plan-caps.ts).
import { randomUUID } from 'node:crypto';
import type { Sql } from '@wap/db/sql';
import { ApiError } from '@wap/errors';
import { nextCheckAt, type resumedCheckAt, type Schedule } from '../domain/schedule.js';
import type { Check, Delivery, Monitor, Snapshot } from '../generated/prisma/client.js';
import type { MonitorDatabase } from './database.js';

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
export async function lockWorkspace(tx: Sql, workspaceId: string): Promise<void> {
  await tx.query`SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtextextended(${`monitors:${workspaceId}`}, 0))`;
}

/** What a monitor's next check after a pause is worked out from (`resumedCheckAt`). */
export type ResumedMonitor = Parameters<typeof resumedCheckAt>[0];

/** A monitor as created: the defaults of the rest are the table's. */
export interface NewMonitor {
  id: string;
  workspaceId: string;
  url: string;
  schedule: object;
  watch: object;
  scrape: object;
  targetKind: string;
  targetSealed: string;
  targetShown: string;
  secretSealed?: string;
  anchorAt?: Date;
  createdAt?: Date;
  nextCheckAt: Date;
}

export class MonitorStore {
  constructor(private readonly db: MonitorDatabase) {}

  /**
   * Up to `limit` monitors due now, claimed by `replica` for `leaseMs`: each
   * gets a check row and its next check time (the next slot after now, so an
   * outage is made up once).
   */
  claimDue(replica: string, limit: number, leaseMs: number, now = new Date()): Promise<Claimed[]> {
    return this.db.transaction(async (tx) => {
      const due = await tx.query<MonitorRow>`
        SELECT * FROM monitors WHERE next_check_at <= ${now} AND plan_paused_at IS NULL
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
      await tx.execute`
        UPDATE monitors SET next_check_at = v.next
          FROM unnest(${claimed.map((c) => c.monitor.id)}::uuid[],
                      ${claimed.map((c) => c.monitor.nextCheckAt)}::timestamptz[]) AS v(id, next)
         WHERE monitors.id = v.id`;
      const checks = claimed.map((c) => c.check);
      await tx.execute`
        INSERT INTO checks (id, monitor_id, workspace_id, due_at, claimed_by, started_at, lease_until)
        SELECT * FROM unnest(${checks.map((c) => c.id)}::uuid[], ${checks.map((c) => c.monitorId)}::uuid[],
                             ${checks.map((c) => c.workspaceId)}::text[], ${checks.map((c) => c.dueAt)}::timestamptz[],
                             ${checks.map((c) => c.claimedBy)}::text[], ${checks.map((c) => c.startedAt)}::timestamptz[],
                             ${checks.map((c) => c.leaseUntil)}::timestamptz[])`;
      return claimed;
    });
  }

  /**
   * Checks left unfinished by a replica whose lease lapsed, taken over by
   * `replica` (same check id: billed once). One statement when there are none,
   * as on almost every pass.
   */
  async reclaimLapsed(replica: string, limit: number, leaseMs: number, now = new Date()): Promise<Claimed[]> {
    const taken = await this.db.query<{ id: string }>`
      UPDATE checks SET claimed_by = ${replica}, lease_until = ${new Date(now.getTime() + leaseMs)}
       WHERE id IN (SELECT c.id FROM checks c
                     WHERE c.finished_at IS NULL AND c.lease_until <= ${now}
                     ORDER BY c.lease_until LIMIT ${limit}
                       FOR UPDATE SKIP LOCKED)
      RETURNING id`;
    if (taken.length === 0) return [];
    const checks = await this.db
      .query<CheckRow>`SELECT * FROM checks WHERE id = ANY(${taken.map((t) => t.id)}::uuid[])`;
    const monitors = await this.db.query<MonitorRow>`
      SELECT * FROM monitors WHERE id = ANY(${checks.map((c) => c.monitorId)}::uuid[])`;
    const byId = new Map(monitors.map((m) => [m.id, m]));
    const out: Claimed[] = [];
    for (const check of checks) {
      const monitor = byId.get(check.monitorId);
      // A deleted monitor's check has nothing left to do.
      if (monitor) out.push({ check, monitor });
      else await this.db.execute`DELETE FROM checks WHERE id = ${check.id}::uuid`;
    }
    return out;
  }

  /** When the next monitor falls due, if any does (a paused workspace's, and those past its plan, are not due). */
  async nextDueAt(): Promise<Date | undefined> {
    const [first] = await this.db.query<{ at: Date }>`
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
  create(m: NewMonitor, cap: number): Promise<MonitorRow> {
    return this.db.transaction(async (tx) => {
      await lockWorkspace(tx, m.workspaceId);
      const [counted] = await tx.query<{ kept: number }>`
        SELECT count(*)::int AS kept FROM monitors WHERE workspace_id = ${m.workspaceId}`;
      const kept = counted?.kept ?? 0;
      if (kept >= cap) throw new ApiError('cap_exceeded', { cap, spent: kept, needed: 1 });
      const [pause] = await tx.query<{ probeAt: Date }>`
        SELECT probe_at FROM workspace_pauses WHERE workspace_id = ${m.workspaceId}`;
      const nextCheckAt = pause ? new Date(Math.max(+m.nextCheckAt, +pause.probeAt)) : m.nextCheckAt;
      const [row] = await tx.query<MonitorRow>`
        INSERT INTO monitors (id, workspace_id, url, schedule, watch, scrape, target_kind, target_sealed, target_shown,
                              secret_sealed, created_at, anchor_at, next_check_at, skipped_reason)
        VALUES (${m.id}::uuid, ${m.workspaceId}, ${m.url}, ${JSON.stringify(m.schedule)}::jsonb,
                ${JSON.stringify(m.watch)}::jsonb, ${JSON.stringify(m.scrape)}::jsonb, ${m.targetKind},
                ${m.targetSealed}, ${m.targetShown}, ${m.secretSealed ?? null},
                COALESCE(${m.createdAt ?? null}::timestamptz, now()), COALESCE(${m.anchorAt ?? null}::timestamptz, now()),
                ${nextCheckAt}, ${pause ? 'credits' : null})
        RETURNING *`;
      return row as MonitorRow;
    });
  }

  /** Keeps `replica`'s unfinished checks its own for another `leaseMs` (they are still running). */
  async renew(replica: string, checkIds: string[], leaseMs: number, now = new Date()): Promise<void> {
    if (checkIds.length === 0) return;
    await this.db.execute`
      UPDATE checks SET lease_until = ${new Date(now.getTime() + leaseMs)}
       WHERE id = ANY(${checkIds}::uuid[]) AND claimed_by = ${replica} AND finished_at IS NULL`;
  }

  /**
   * Records how the check ended on it and on its monitor, in one statement;
   * false when the monitor is gone (deleted meanwhile).
   */
  async finish(
    check: CheckRow,
    outcome: { status: 'ok' | 'changed' | 'failed' | 'skipped'; errorCode?: string; skippedReason?: string },
  ): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>`
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
    const [before] = await this.db.query<{ id: string }>`
      SELECT id FROM snapshots WHERE monitor_id = ${monitorId}::uuid AND taken_at < ${takenAt}
       ORDER BY taken_at DESC LIMIT 1`;
    return before?.id;
  }

  /** Up to `take` of the workspace's monitors, newest first, after the cursor's position when given. */
  list(workspaceId: string, take: number, after?: { at: Date; id: string }): Promise<MonitorRow[]> {
    const afterAt = after?.at ?? null;
    const afterId = after?.id ?? null;
    return this.db.query<MonitorRow>`
      SELECT * FROM monitors
       WHERE workspace_id = ${workspaceId}
         AND (${afterAt}::timestamptz IS NULL OR (created_at, id) < (${afterAt}::timestamptz, ${afterId}::uuid))
       ORDER BY created_at DESC, id DESC
       LIMIT ${take}`;
  }

  /** The last `shown` deliveries of each monitor, newest first. */
  async recentDeliveries(monitorIds: string[], shown: number): Promise<Map<string, Delivery[]>> {
    const byMonitor = new Map<string, Delivery[]>();
    if (monitorIds.length === 0) return byMonitor;
    const rows = await this.db.query<Delivery>`
      SELECT d.* FROM unnest(${monitorIds}::uuid[]) AS m(id)
       CROSS JOIN LATERAL (SELECT * FROM deliveries WHERE monitor_id = m.id
                            ORDER BY created_at DESC LIMIT ${shown}) d
       ORDER BY d.created_at DESC, d.id DESC`;
    for (const row of rows) byMonitor.set(row.monitorId, [...(byMonitor.get(row.monitorId) ?? []), row]);
    return byMonitor;
  }

  /** Deletes the workspace's monitor with its snapshots, deliveries and checks; false when it has none by that id. */
  delete(workspaceId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const count = await tx.execute`DELETE FROM monitors WHERE id = ${id}::uuid AND workspace_id = ${workspaceId}`;
      if (count === 0) return false;
      await tx.execute`DELETE FROM snapshots WHERE monitor_id = ${id}::uuid`;
      await tx.execute`DELETE FROM deliveries WHERE monitor_id = ${id}::uuid`;
      await tx.execute`DELETE FROM checks WHERE monitor_id = ${id}::uuid`;
      return true;
    });
  }

  /** A snapshot with its monitor, while both exist. */
  async snapshot(id: string): Promise<{ snapshot: Snapshot; monitor: MonitorRow } | undefined> {
    const [snapshot] = await this.db.query<Snapshot>`SELECT * FROM snapshots WHERE id = ${id}::uuid`;
    const [monitor] = snapshot
      ? await this.db.query<MonitorRow>`SELECT * FROM monitors WHERE id = ${snapshot.monitorId}::uuid`
      : [];
    return snapshot && monitor ? { snapshot, monitor } : undefined;
  }

  /** The text of the monitor's newest snapshot: what a changed page is compared with. */
  async lastSnapshotText(monitorId: string): Promise<string | undefined> {
    const [last] = await this.db.query<{ text: string }>`
      SELECT text FROM snapshots WHERE monitor_id = ${monitorId}::uuid ORDER BY taken_at DESC LIMIT 1`;
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
    return this.db.transaction(async (tx) => {
      const count =
        await tx.execute`UPDATE monitors SET last_sha256 = ${found.sha256} WHERE id = ${found.monitorId}::uuid`;
      if (count === 0) return;
      const snapshotId = randomUUID();
      await tx.execute`
        INSERT INTO snapshots (id, monitor_id, check_id, text, sha256, diff)
        VALUES (${snapshotId}::uuid, ${found.monitorId}::uuid, ${found.checkId}::uuid, ${found.text}, ${found.sha256},
                ${found.diff ? JSON.stringify(found.diff) : null}::jsonb)`;
      if (found.diff)
        await tx.execute`
          INSERT INTO deliveries (id, monitor_id, snapshot_id, status, next_attempt)
          VALUES (${randomUUID()}::uuid, ${found.monitorId}::uuid, ${snapshotId}::uuid, 'pending', now())`;
    });
  }
}
