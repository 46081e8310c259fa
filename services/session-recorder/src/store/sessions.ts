// The sessions table: each session's furthest snapshot from its host, and the
// workspace's listing, newest first.
import type { SessionSnapshot } from '@wap/events';
import type { PrismaClient, Session } from '../generated/prisma/client.js';

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
  constructor(private readonly db: PrismaClient) {}

  /**
   * Keeps the snapshot unless the row already has a further one: any order
   * and any number of deliveries leave the same row (an ended session stays ended).
   */
  async apply(s: SessionSnapshot): Promise<void> {
    await this.db.$executeRaw`
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

  get(workspaceId: string, id: string): Promise<SessionRow | null> {
    return this.db.session.findFirst({ where: { id, workspaceId, status: { not: 'deleted' } } });
  }

  /** One page of the workspace's sessions, newest first; one more than `limit` tells whether more follow. */
  list(f: SessionFilter): Promise<SessionRow[]> {
    return this.db.session.findMany({
      where: {
        workspaceId: f.workspaceId,
        status: f.status || { not: 'deleted' },
        ...(f.outcome && { outcome: f.outcome }),
        ...(f.kind && { kind: f.kind }),
        startedAt: { ...(f.startedAfter && { gte: f.startedAfter }), ...(f.startedBefore && { lt: f.startedBefore }) },
        ...(f.after && {
          OR: [{ startedAt: { lt: f.after.startedAt } }, { startedAt: f.after.startedAt, id: { lt: f.after.id } }],
        }),
      },
      orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
      take: f.limit + 1,
    });
  }
}
