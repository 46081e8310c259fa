// The web console's sign-ins (docs/console.md): a 256-bit random cookie of
// which only the SHA-256 is kept. Every request reads its row joined to the
// membership it acts under and the workspace, so a signed-out session or a
// removed member (whose rows the membership's deletion takes along) is
// refused on the next request on every gateway replica.
import { randomBytes } from 'node:crypto';
import type { PooledDatabase } from '@wap/db';
import type { PlanName } from '@wap/plans';
import { hashSecret } from '../domain/credentials.js';
import type { PrismaClient } from '../generated/prisma/client.js';

/** A session lapses this long after it was last seen... */
export const CONSOLE_IDLE_MS = 24 * 3_600_000;
/** ...and this long after it was made, whatever its use. */
export const CONSOLE_LIFETIME_MS = 30 * 86_400_000;
/** Last-seen is written when it is older than this: a write every few minutes, not per request. */
export const CONSOLE_SEEN_EVERY_MS = 5 * 60_000;

export type Role = 'owner' | 'member';

/** A live console session, as read on a request. */
export interface ConsoleSession {
  id: string;
  userId: string;
  email: string;
  workspaceId: string;
  workspaceName: string;
  plan: PlanName;
  role: Role;
  createdAt: Date;
  lastSeenAt: Date;
}

/** When a session made at `createdAt` and last seen at `lastSeenAt` lapses. */
export const consoleExpiry = (createdAt: Date, lastSeenAt: Date) =>
  new Date(Math.min(lastSeenAt.getTime() + CONSOLE_IDLE_MS, createdAt.getTime() + CONSOLE_LIFETIME_MS));

const hashOf = (token: string) => new Uint8Array(hashSecret(token));

export class ConsoleSessionStore {
  private readonly db: PrismaClient;

  constructor(private readonly database: PooledDatabase<PrismaClient>) {
    this.db = database.prisma;
  }

  /** A new session of the member; the returned token (the cookie's value) is its only copy. */
  async create(userId: string, workspaceId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.db.consoleSession.create({ data: { tokenHash: hashOf(token), userId, workspaceId } });
    // Now and then, the rows of sessions that lapsed.
    if (Math.random() < 0.01) await this.sweep();
    return token;
  }

  /**
   * The session of `token` when it is valid now and its membership exists;
   * its last-seen moves when it is older than CONSOLE_SEEN_EVERY_MS (in the
   * same statement: one round trip per request either way).
   */
  async find(token: string): Promise<ConsoleSession | undefined> {
    const { rows } = await this.database.pool.query<{
      id: string;
      user_id: string;
      email: string;
      workspace_id: string;
      name: string;
      plan: PlanName;
      role: Role;
      created_at: Date;
      last_seen_at: Date;
    }>({
      name: 'console_session_lookup',
      text: `WITH s AS (
               SELECT s.id, s.user_id, u.email, s.workspace_id, w.name, w.plan::text AS plan, m.role::text AS role,
                      s.created_at, s.last_seen_at
                 FROM console_sessions s
                 JOIN memberships m ON m.workspace_id = s.workspace_id AND m.user_id = s.user_id
                 JOIN workspaces w ON w.id = s.workspace_id
                 JOIN users u ON u.id = s.user_id
                WHERE s.token_hash = $1
                  AND s.last_seen_at > now() - $2::float8 * interval '1 millisecond'
                  AND s.created_at > now() - $3::float8 * interval '1 millisecond'),
             seen AS (
               UPDATE console_sessions c SET last_seen_at = now() FROM s
                WHERE c.id = s.id AND s.last_seen_at < now() - $4::float8 * interval '1 millisecond'
                RETURNING c.last_seen_at)
             SELECT s.id, s.user_id, s.email, s.workspace_id, s.name, s.plan, s.role, s.created_at,
                    coalesce((SELECT last_seen_at FROM seen), s.last_seen_at) AS last_seen_at
               FROM s`,
      values: [hashSecret(token), CONSOLE_IDLE_MS, CONSOLE_LIFETIME_MS, CONSOLE_SEEN_EVERY_MS],
    });
    const hit = rows[0];
    return (
      hit && {
        id: hit.id,
        userId: hit.user_id,
        email: hit.email,
        workspaceId: hit.workspace_id,
        workspaceName: hit.name,
        plan: hit.plan,
        role: hit.role,
        createdAt: hit.created_at,
        lastSeenAt: hit.last_seen_at,
      }
    );
  }

  /** Signs the session out: its row is gone, so every replica refuses it next. */
  async end(sessionId: string): Promise<void> {
    await this.db.consoleSession.deleteMany({ where: { id: sessionId } });
  }

  /** Moves the session to another workspace of its user; false when the user is no member of it. */
  async moveTo(sessionId: string, workspaceId: string): Promise<boolean> {
    const { rowCount } = await this.database.pool.query(
      `UPDATE console_sessions s SET workspace_id = $2
        WHERE s.id = $1 AND EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = $2 AND m.user_id = s.user_id)`,
      [sessionId, workspaceId],
    );
    return rowCount === 1;
  }

  private async sweep(): Promise<void> {
    const now = Date.now();
    await this.db.consoleSession.deleteMany({
      where: {
        OR: [
          { lastSeenAt: { lt: new Date(now - CONSOLE_IDLE_MS) } },
          { createdAt: { lt: new Date(now - CONSOLE_LIFETIME_MS) } },
        ],
      },
    });
  }
}
