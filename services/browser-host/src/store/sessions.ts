// The session rows (browser_sessions): opened, kept alive by their host,
// journaled as they are billed, ended; and the rows of a host that died,
// found so their bills can be finished. Opening and ending a row also records
// the session's snapshot in the outbox, in the same transaction, for the
// session-recorder (docs/sessions.md).
import type { MeteredState } from '@wap/billing';
import { enqueueEvent, type SessionSnapshot, type SqlClient } from '@wap/events';
import type { BrowserSession } from '../generated/prisma/client.js';
import type { BrowserHostDatabase } from './database.js';

export interface SessionRecord {
  id: string;
  workspaceId: string;
  operationId: string;
  /** The host that runs it (its CDP URL). */
  host: string;
  options: Record<string, unknown>;
  startedAt: Date;
  /** The metered hold's journal; none for a session that holds no credit (a render's: the crawl bills its page). */
  metering?: MeteredState;
}

export type SessionRow = BrowserSession;

export interface SessionEndRecord {
  outcome: string;
  /** Browser seconds billed. */
  seconds: number;
  chargedMc: bigint;
  proxyBytes: number;
}

const TASK_KINDS: readonly string[] = ['agent', 'scrape'] satisfies SessionSnapshot['kind'][];

/** What a row's session served: its options' task (an agent run, a scrape's render), else a CDP client. */
export const kindOf = (row: Pick<SessionRow, 'options'>): SessionSnapshot['kind'] => {
  const kind = (row.options as { task?: { kind?: unknown } } | null)?.task?.kind;
  return typeof kind === 'string' && TASK_KINDS.includes(kind) ? (kind as SessionSnapshot['kind']) : 'connect';
};

/** What the session-recorder is told of a row. */
export const snapshotOf = (row: SessionRow): SessionSnapshot => ({
  id: row.id,
  workspaceId: row.workspaceId,
  kind: kindOf(row),
  status: row.status === 'ended' ? 'ended' : 'live',
  outcome: row.outcome,
  startedAt: row.startedAt.toISOString(),
  endedAt: row.endedAt?.toISOString() ?? null,
  options: row.options as Record<string, unknown>,
  usage: { contextSeconds: row.seconds, proxyBytes: Number(row.proxyBytes), chargedMc: String(row.chargedMc) },
});

export class SessionStore {
  /** `lifecycle`: the subject snapshots go to through the outbox; none without it (tests of the rows alone). */
  constructor(
    private readonly db: BrowserHostDatabase,
    private readonly lifecycle?: string,
  ) {}

  private async announce(tx: SqlClient, row: SessionRow | undefined): Promise<void> {
    if (row && this.lifecycle) await enqueueEvent(tx, this.lifecycle, snapshotOf(row));
  }

  async opened(s: SessionRecord): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [row] = await tx.query<SessionRow>`
        INSERT INTO browser_sessions (id, workspace_id, operation_id, host, status, options, metering, started_at,
                                      heartbeat_at)
        VALUES (${s.id}::uuid, ${s.workspaceId}, ${s.operationId}, ${s.host}, 'live', ${JSON.stringify(s.options)}::jsonb,
                ${s.metering ? JSON.stringify(s.metering) : null}::jsonb, ${s.startedAt}, ${s.startedAt})
        RETURNING *`;
      await this.announce(tx, row);
    });
  }

  /** Ends a live row, and tells the recorder; false when it had already ended. */
  private end(
    id: string,
    end: { outcome: string; endedAt: Date; seconds: number; chargedMc: bigint; proxyBytes?: bigint },
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<SessionRow>`
        UPDATE browser_sessions
           SET status = 'ended', outcome = ${end.outcome}, ended_at = ${end.endedAt}, seconds = ${end.seconds},
               charged_mc = ${end.chargedMc}, proxy_bytes = COALESCE(${end.proxyBytes ?? null}::bigint, proxy_bytes)
         WHERE id = ${id}::uuid AND status = 'live'
        RETURNING *`;
      await this.announce(tx, row);
      return row !== undefined;
    });
  }

  /**
   * The host says these sessions are alive now. Answers the ids whose rows are
   * no longer live: a sweep took them for lost (the host was silent too long)
   * and finished their bills, so the host must end them unbilled.
   */
  async heartbeat(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const live = await this.db.query<{ id: string }>`
      UPDATE browser_sessions SET heartbeat_at = ${new Date()}
       WHERE id = ANY(${[...ids]}::uuid[]) AND status = 'live'
      RETURNING id`;
    if (live.length === ids.length) return [];
    const alive = new Set(live.map((r) => r.id));
    return ids.filter((id) => !alive.has(id));
  }

  /** Keeps the session's billing journal; throws when the row is no longer live (its bill is someone else's now). */
  async journal(id: string, metering: MeteredState): Promise<void> {
    const count = await this.db.execute`
      UPDATE browser_sessions SET metering = ${JSON.stringify(metering)}::jsonb, heartbeat_at = ${new Date()}
       WHERE id = ${id}::uuid AND status = 'live'`;
    if (count !== 1) throw new Error(`session ${id} is no longer live`);
  }

  /** Ends the row once; a row already ended keeps its first end. */
  async ended(id: string, end: SessionEndRecord): Promise<void> {
    await this.end(id, {
      outcome: end.outcome,
      endedAt: new Date(),
      seconds: end.seconds,
      chargedMc: end.chargedMc,
      proxyBytes: BigInt(end.proxyBytes),
    });
  }

  /**
   * Live rows of a host that is gone: every live row whose heartbeat stopped
   * before `staleBefore`, and those of `host`, when a host restarting under the
   * same URL looks for what its previous run left.
   */
  lost(staleBefore: Date, host?: string): Promise<SessionRow[]> {
    return this.db.query<SessionRow>`
      SELECT * FROM browser_sessions
       WHERE status = 'live' AND (heartbeat_at < ${staleBefore} OR host = ${host ?? null}::text)
       ORDER BY heartbeat_at
       LIMIT 100`;
  }

  /** A lost row whose bill is finished: ended as host_lost, at its last heartbeat. */
  recovered(row: Pick<SessionRow, 'id' | 'heartbeatAt'>, seconds: number, chargedMc: bigint): Promise<boolean> {
    return this.end(row.id, { outcome: 'host_lost', endedAt: row.heartbeatAt, seconds, chargedMc });
  }

  async get(id: string): Promise<SessionRow | undefined> {
    const [row] = await this.db.query<SessionRow>`SELECT * FROM browser_sessions WHERE id = ${id}::uuid`;
    return row;
  }
}
