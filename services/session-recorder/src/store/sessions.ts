// The sessions table: each session's furthest snapshot from its host, and the
// workspace's listing, newest first.
import type { SessionSnapshot } from '@wap/events';
import type { Session } from '../generated/prisma/client.js';
import type { SessionRecorderDatabase } from './database.js';

export type SessionRow = Session;

export interface SessionFilter {
  workspaceId: string;
  status?: string;
  outcome?: string;
  kind?: string;
  startedAfter?: Date;
  startedBefore?: Date;
  /** Strictly older than this (started_at, id), from the previous page. */
  after?: { startedAt: Date; id: string };
  limit: number;
}

export class SessionRows {
  constructor(private readonly db: SessionRecorderDatabase) {}

  /**
   * Keeps the snapshot unless the row already has a further one: any order
   * and any number of deliveries leave the same row (an ended session stays ended).
   */
  async apply(s: SessionSnapshot): Promise<void> {
    await this.db.execute`
      INSERT INTO sessions (id, workspace_id, kind, status, outcome, started_at, ended_at, options,
                            context_seconds, proxy_bytes, charged_mc, updated_at)
      VALUES (${s.id}::uuid, ${s.workspaceId}, ${s.kind}, ${s.status}, ${s.outcome}, ${new Date(s.startedAt)},
              ${s.endedAt ? new Date(s.endedAt) : null}, ${JSON.stringify(s.options)}::jsonb,
              ${s.usage.contextSeconds}, ${BigInt(s.usage.proxyBytes)}, ${BigInt(s.usage.chargedMc)}, now())
      ON CONFLICT (id) DO UPDATE SET
        status = excluded.status, outcome = excluded.outcome, ended_at = excluded.ended_at,
        context_seconds = excluded.context_seconds, proxy_bytes = excluded.proxy_bytes,
        charged_mc = excluded.charged_mc, updated_at = now()
      WHERE sessions.status = 'live' AND sessions.workspace_id = excluded.workspace_id`;
  }

  async get(workspaceId: string, id: string): Promise<SessionRow | null> {
    const [row] = await this.db.query<SessionRow>`
      SELECT * FROM sessions WHERE id = ${id}::uuid AND workspace_id = ${workspaceId} AND status <> 'deleted'`;
    return row ?? null;
  }

  /** One page of the workspace's sessions, newest first; one more than `limit` tells whether more follow. */
  list(f: SessionFilter): Promise<SessionRow[]> {
    // An empty filter filters nothing; without a status, every session but the deleted ones.
    const status = f.status || null;
    const outcome = f.outcome || null;
    const kind = f.kind || null;
    const after = f.startedAfter ?? null;
    const before = f.startedBefore ?? null;
    const pastAt = f.after?.startedAt ?? null;
    const pastId = f.after?.id ?? null;
    return this.db.query<SessionRow>`
      SELECT * FROM sessions
       WHERE workspace_id = ${f.workspaceId}
         AND ((${status}::text IS NULL AND status <> 'deleted') OR status = ${status}::text)
         AND (${outcome}::text IS NULL OR outcome = ${outcome}::text)
         AND (${kind}::text IS NULL OR kind = ${kind}::text)
         AND (${after}::timestamptz IS NULL OR started_at >= ${after}::timestamptz)
         AND (${before}::timestamptz IS NULL OR started_at < ${before}::timestamptz)
         AND (${pastAt}::timestamptz IS NULL OR (started_at, id) < (${pastAt}::timestamptz, ${pastId}::uuid))
       ORDER BY started_at DESC, id DESC
       LIMIT ${f.limit + 1}`;
  }
}
