// Workspaces whose checks are skipped for credits (docs/monitors.md,
// "Credits"). A paused workspace's monitors are not claimed, and their next
// checks are put off to when its credits are looked at again, so a workspace
// that cannot pay costs the schedule nothing while it waits. Every change of
// one workspace's pause and monitors holds its lock first (`lockWorkspace`),
// so a pause, a resume and a creation of that workspace never interleave.
import { resumedCheckAt } from '../domain/schedule.js';
import type { MonitorDatabase } from './database.js';
import { lockWorkspace, type ResumedMonitor } from './monitors.js';

export interface DueProbe {
  workspaceId: string;
  /** Looks before this one that found too little. */
  probes: number;
}

export class PauseStore {
  constructor(private readonly db: MonitorDatabase) {}

  /**
   * Pauses the workspace after a check was refused for credits (a pause that
   * exists is kept as it is): its monitors say why and are put off to the
   * first look at its credits.
   */
  pause(workspaceId: string, probeAt: Date): Promise<void> {
    return this.db.transaction(async (tx) => {
      await lockWorkspace(tx, workspaceId);
      await tx.execute`
        INSERT INTO workspace_pauses (workspace_id, probe_at) VALUES (${workspaceId}, ${probeAt})
        ON CONFLICT (workspace_id) DO NOTHING`;
      await tx.execute`
        UPDATE monitors SET skipped_reason = 'credits',
               next_check_at = GREATEST(next_check_at, p.probe_at)
          FROM workspace_pauses p
         WHERE p.workspace_id = ${workspaceId} AND monitors.workspace_id = p.workspace_id`;
    });
  }

  /** The workspaces of `ids` that are paused, looked at as soon as a replica can (their credits changed). */
  async probeSoon(ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return this.db.execute`
      UPDATE workspace_pauses SET probe_at = now() WHERE workspace_id = ANY(${ids}) AND probe_at > now()`;
  }

  /**
   * Up to `limit` pauses due for a look, taken by this replica: each is put
   * off by `leaseMs` at once (a replica that dies mid-look leaves it to the
   * next after that) and its look counted.
   */
  takeDue(limit: number, leaseMs: number, now = new Date()): Promise<DueProbe[]> {
    return this.db.query<DueProbe>`
      UPDATE workspace_pauses SET probe_at = ${new Date(now.getTime() + leaseMs)}, probes = probes + 1
       WHERE workspace_id IN (SELECT workspace_id FROM workspace_pauses WHERE probe_at <= ${now}
                               ORDER BY probe_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING workspace_id AS "workspaceId", probes - 1 AS probes`;
  }

  /** A look found too little: the next is at `probeAt`, and no monitor of the workspace is due before it. */
  putOff(workspaceId: string, probeAt: Date): Promise<void> {
    return this.db.transaction(async (tx) => {
      await lockWorkspace(tx, workspaceId);
      const count =
        await tx.execute`UPDATE workspace_pauses SET probe_at = ${probeAt} WHERE workspace_id = ${workspaceId}`;
      if (count === 0) return; // resumed meanwhile
      await tx.execute`
        UPDATE monitors SET next_check_at = ${probeAt}, skipped_reason = 'credits'
         WHERE workspace_id = ${workspaceId} AND next_check_at < ${probeAt}`;
    });
  }

  /**
   * Checks resume: the pause goes, and each monitor is due at its own next
   * check again (one whose slot came during the pause at once, once).
   * False when the workspace was not paused.
   */
  resume(workspaceId: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      await lockWorkspace(tx, workspaceId);
      const count = await tx.execute`DELETE FROM workspace_pauses WHERE workspace_id = ${workspaceId}`;
      if (count === 0) return false;
      const monitors = await tx.query<ResumedMonitor>`
        SELECT id, schedule, anchor_at, created_at, last_check_at FROM monitors WHERE workspace_id = ${workspaceId}`;
      if (monitors.length === 0) return true;
      const next = monitors.map((m) => resumedCheckAt(m));
      await tx.execute`
        UPDATE monitors SET next_check_at = v.next, skipped_reason = NULL
          FROM unnest(${monitors.map((m) => m.id)}::uuid[], ${next}::timestamptz[]) AS v(id, next)
         WHERE monitors.id = v.id`;
      return true;
    });
  }
}
