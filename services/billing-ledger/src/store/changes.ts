// Which workspaces' credits just changed, announced once their transactions
// committed, so gateways can drop the credit views they cache
// (docs/decisions/0008-credits-cache.md). Announcements are coalesced: every
// workspace touched within `coalesceMs` of the first goes out in one message
// (a crawl settles a thousand pages a second; the gateways need far fewer).
// They are fire and forget; a gateway bounds what a lost one can cost by
// expiring its views on its own.
import type { Logger } from '@wap/log';
import type pg from 'pg';

/** What the money store tells about the writes it committed. */
export interface ChangeSink {
  /** The workspace's credits changed. */
  workspace(workspaceId: string): void;
  /** The hold's workspace's credits changed (a settle or a void names only the hold). */
  hold(holdId: string): void;
  /** A hold was placed for the workspace: its later settles and void need no lookup. */
  holdPlaced(holdId: string, workspaceId: string): void;
}

export class BalanceChanges implements ChangeSink {
  private readonly workspaces = new Set<string>();
  private readonly unknownHolds = new Set<string>();
  /** Hold → workspace, for the holds this process placed or looked up; the oldest go first. */
  private readonly holders = new Map<string, string>();
  private scheduled = false;
  /** Flushes under way, and who waits for none to be left. */
  private flushing = 0;
  private readonly idle: (() => void)[] = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly publish: (workspaceIds: string[]) => void,
    private readonly log: Logger,
    private readonly coalesceMs = 10,
    private readonly maxHolds = 100_000,
  ) {}

  workspace(workspaceId: string): void {
    this.workspaces.add(workspaceId);
    this.schedule();
  }

  hold(holdId: string): void {
    const workspaceId = this.holders.get(holdId);
    if (workspaceId) this.workspace(workspaceId);
    else {
      this.unknownHolds.add(holdId);
      this.schedule();
    }
  }

  holdPlaced(holdId: string, workspaceId: string): void {
    if (this.holders.size >= this.maxHolds) {
      const oldest = this.holders.keys().next().value;
      if (oldest !== undefined) this.holders.delete(oldest);
    }
    this.holders.set(holdId, workspaceId);
  }

  /** Resolves once everything told so far has been announced (or given up on). */
  announced(): Promise<void> {
    if (!this.scheduled && this.flushing === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => {
      this.scheduled = false;
      this.flushing++;
      void this.flush().finally(() => {
        this.flushing--;
        if (!this.scheduled && this.flushing === 0) for (const resolve of this.idle.splice(0)) resolve();
      });
    }, this.coalesceMs);
  }

  private async flush(): Promise<void> {
    if (this.unknownHolds.size > 0) {
      const holds = [...this.unknownHolds];
      this.unknownHolds.clear();
      try {
        const { rows } = await this.pool.query<{ id: string; workspace_id: string }>(
          'SELECT "id"::text AS id, "workspace_id" FROM "holds" WHERE "id" = ANY($1::uuid[])',
          [holds],
        );
        for (const row of rows) {
          this.holdPlaced(row.id, row.workspace_id);
          this.workspaces.add(row.workspace_id);
        }
      } catch (err) {
        this.log.warn({ err, holds: holds.length }, 'could not tell whose credits changed; gateways expire them');
      }
    }
    if (this.workspaces.size === 0) return;
    const workspaceIds = [...this.workspaces];
    this.workspaces.clear();
    try {
      this.publish(workspaceIds);
    } catch (err) {
      this.log.warn({ err }, 'could not announce changed credits; gateways expire them');
    }
  }
}
