// Monitors past their workspace plan's cap (docs/monitors.md, "Limits per
// plan"): a workspace moved to a plan that keeps fewer monitors than it has
// keeps them all, but only the oldest `cap` are checked; the newest past the
// cap are paused (`plan_paused_at`), never claimed, and resume oldest first as
// room comes (a higher plan, a monitor deleted). Every change holds the
// workspace's lock (`lockWorkspace`), as creations and credit pauses do.
import { resumedCheckAt } from '../domain/schedule.js';
import type { MonitorDatabase } from './database.js';
import { lockWorkspace, type ResumedMonitor } from './monitors.js';

export class PlanCapStore {
  constructor(private readonly db: MonitorDatabase) {}

  /**
   * The workspaces of `ids` whose monitors may not fit some plan: more than
   * `smallestCap` of them, or some paused for a plan. Any other fits every
   * plan as it is, and is not worth a look at its plan.
   */
  async mayNotFit(ids: string[], smallestCap: number): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.query<{ workspaceId: string }>`
      SELECT workspace_id AS "workspaceId" FROM monitors WHERE workspace_id = ANY(${ids})
       GROUP BY workspace_id HAVING count(*) > ${smallestCap} OR count(plan_paused_at) > 0`;
    return rows.map((r) => r.workspaceId);
  }

  /**
   * Fits the workspace's monitors to `cap`: the oldest `cap` are checked, the
   * rest paused. A monitor that resumes is due at its own next check (one
   * whose slot came while it was paused at once, once), or, while the
   * workspace is paused for credits, waits with its others. Answers how many
   * were paused and resumed now.
   */
  fit(workspaceId: string, cap: number, now = new Date()): Promise<{ paused: number; resumed: number }> {
    return this.db.transaction(async (tx) => {
      await lockWorkspace(tx, workspaceId);
      // Only the monitors on the wrong side of the cap, in the order they were made.
      const moves = await tx.query<{ id: string; pause: boolean }>`
        SELECT id, n > ${cap} AS pause FROM (
          SELECT id, plan_paused_at IS NOT NULL AS paused, row_number() OVER (ORDER BY created_at, id) AS n
            FROM monitors WHERE workspace_id = ${workspaceId}) ranked
         WHERE (n > ${cap}) <> paused`;
      const pause = moves.filter((m) => m.pause).map((m) => m.id);
      const resume = moves.filter((m) => !m.pause).map((m) => m.id);
      if (pause.length > 0)
        await tx.execute`UPDATE monitors SET plan_paused_at = ${now} WHERE id = ANY(${pause}::uuid[])`;
      if (resume.length > 0) {
        const monitors = await tx.query<ResumedMonitor>`
          SELECT id, schedule, anchor_at, created_at, last_check_at FROM monitors WHERE id = ANY(${resume}::uuid[])`;
        const [credits] = await tx.query<{ probeAt: Date }>`
          SELECT probe_at FROM workspace_pauses WHERE workspace_id = ${workspaceId}`;
        const next = monitors.map((m) => {
          const at = resumedCheckAt(m);
          return credits && credits.probeAt > at ? credits.probeAt : at;
        });
        await tx.execute`
          UPDATE monitors SET plan_paused_at = NULL, next_check_at = v.next, skipped_reason = ${credits ? 'credits' : null}
            FROM unnest(${monitors.map((m) => m.id)}::uuid[], ${next}::timestamptz[]) AS v(id, next)
           WHERE monitors.id = v.id`;
      }
      return { paused: pause.length, resumed: resume.length };
    });
  }
}
