// Profiles and their saved states (docs/profiles.md), in browser-host's
// database, which every replica shares: created, listed by a label glob,
// leased to one live session at a time (a lease its host renews, so a host
// killed with -9 lets go within the TTL), saved atomically when a session
// ends cleanly, and deleted for good.
import { createHash, randomUUID } from 'node:crypto';
import type { Profile } from '../generated/prisma/client.js';
import type { BrowserHostDatabase } from './database.js';

export type ProfileRow = Profile;

export interface NewProfile {
  workspaceId: string;
  label: string;
  exit: { id: string; kind: string; region: string };
}

export interface ProfileFilter {
  workspaceId: string;
  /** `*` any run, `?` one character; everything else literal. */
  labelGlob?: string;
  /** Strictly older than this (created_at, id), from the previous page. */
  after?: { createdAt: Date; id: string };
  limit: number;
}

/** A glob as a LIKE pattern with `\` as its escape: `%`, `_` and `\` of the glob stay literal. */
export function likeOfGlob(glob: string): string {
  let out = '';
  for (const ch of glob) {
    if (ch === '*') out += '%';
    else if (ch === '?') out += '_';
    else if (ch === '%' || ch === '_' || ch === '\\') out += `\\${ch}`;
    else out += ch;
  }
  return out;
}

/** Whether a row's lease is held now. */
export const leased = (row: Pick<Profile, 'leaseSession' | 'leaseExpiresAt'>, now = Date.now()) =>
  row.leaseSession !== null && row.leaseExpiresAt !== null && row.leaseExpiresAt.getTime() > now;

export class ProfileStore {
  constructor(private readonly db: BrowserHostDatabase) {}

  async create(p: NewProfile): Promise<ProfileRow> {
    const [row] = await this.db.query<ProfileRow>`
      INSERT INTO profiles (id, workspace_id, label, exit_id, exit_kind, exit_region)
      VALUES (${randomUUID()}::uuid, ${p.workspaceId}, ${p.label}, ${p.exit.id}, ${p.exit.kind}, ${p.exit.region})
      RETURNING *`;
    return row as ProfileRow;
  }

  async get(workspaceId: string, id: string): Promise<ProfileRow | null> {
    const [row] = await this.db.query<ProfileRow>`
      SELECT * FROM profiles WHERE id = ${id}::uuid AND workspace_id = ${workspaceId}`;
    return row ?? null;
  }

  /** One page, newest first; one more than `limit` tells whether more follow. */
  list(f: ProfileFilter): Promise<ProfileRow[]> {
    const like = f.labelGlob === undefined ? null : likeOfGlob(f.labelGlob);
    const afterAt = f.after?.createdAt ?? null;
    const afterId = f.after?.id ?? null;
    return this.db.query<ProfileRow>`
      SELECT * FROM profiles
       WHERE workspace_id = ${f.workspaceId}
         AND (${like}::text IS NULL OR label LIKE ${like}::text ESCAPE '\\')
         AND (${afterAt}::timestamptz IS NULL OR (created_at, id) < (${afterAt}::timestamptz, ${afterId}::uuid))
       ORDER BY created_at DESC, id DESC
       LIMIT ${f.limit + 1}`;
  }

  /** Deletes the profile and every state it had; 'in_use' while a session holds it. */
  delete(workspaceId: string, id: string): Promise<'deleted' | 'not_found' | 'in_use'> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<Pick<Profile, 'leaseSession' | 'leaseExpiresAt'>>`
        SELECT lease_session, lease_expires_at
          FROM profiles WHERE id = ${id}::uuid AND workspace_id = ${workspaceId} FOR UPDATE`;
      if (!row) return 'not_found';
      if (leased(row)) return 'in_use';
      await tx.execute`DELETE FROM profile_states WHERE profile_id = ${id}::uuid`;
      await tx.execute`DELETE FROM profiles WHERE id = ${id}::uuid`;
      return 'deleted';
    });
  }

  /**
   * The lease for `sessionId` on `host`, if the profile is the workspace's and
   * free (or its lease lapsed): the row; otherwise why not.
   */
  async acquire(
    workspaceId: string,
    id: string,
    holder: { sessionId: string; host: string },
    ttlMs: number,
  ): Promise<ProfileRow | 'not_found' | 'in_use'> {
    const [row] = await this.db.query<ProfileRow>`
      UPDATE profiles
         SET lease_session = ${holder.sessionId}::uuid, lease_host = ${holder.host},
             lease_expires_at = now() + make_interval(secs => ${ttlMs / 1000}), last_used_at = now()
       WHERE id = ${id}::uuid AND workspace_id = ${workspaceId}
         AND (lease_session IS NULL OR lease_expires_at <= now())
       RETURNING *`;
    if (row) return row;
    return (await this.get(workspaceId, id)) ? 'in_use' : 'not_found';
  }

  /** Moves the leases these sessions hold TTL into the future (their host's heartbeat). */
  async renew(sessionIds: readonly string[], ttlMs: number): Promise<void> {
    if (sessionIds.length === 0) return;
    await this.db.execute`
      UPDATE profiles SET lease_expires_at = now() + make_interval(secs => ${ttlMs / 1000})
       WHERE lease_session = ANY(${[...sessionIds]}::uuid[])`;
  }

  /** The current state as stored, if a session saved one. */
  async state(id: string): Promise<Buffer | undefined> {
    const [state] = await this.db.query<{ data: Buffer }>`
      SELECT s.data FROM profiles p JOIN profile_states s ON s.id = p.state_id WHERE p.id = ${id}::uuid`;
    return state?.data;
  }

  /**
   * Ends the session's lease, first saving `sealed` as the profile's state
   * when given: the new state and the pointer to it in one transaction, the
   * old state deleted in it too. 'lost' when the session no longer held the
   * lease (it lapsed and another took it): nothing is saved over that one.
   */
  release(id: string, sessionId: string, sealed?: Buffer): Promise<'released' | 'lost'> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<{ stateId: string | null }>`
        SELECT state_id FROM profiles
         WHERE id = ${id}::uuid AND lease_session = ${sessionId}::uuid FOR UPDATE`;
      if (!row) return 'lost';
      if (sealed) {
        const stateId = randomUUID();
        await tx.execute`
          INSERT INTO profile_states (id, profile_id, data, sha256)
          VALUES (${stateId}::uuid, ${id}::uuid, ${sealed}, ${createHash('sha256').update(sealed).digest('hex')})`;
        await tx.execute`UPDATE profiles SET state_id = ${stateId}::uuid, size_bytes = ${sealed.length} WHERE id = ${id}::uuid`;
        await tx.execute`DELETE FROM profile_states WHERE profile_id = ${id}::uuid AND id <> ${stateId}::uuid`;
      }
      await tx.execute`
        UPDATE profiles SET lease_session = NULL, lease_host = NULL, lease_expires_at = NULL, last_used_at = ${new Date()}
         WHERE id = ${id}::uuid`;
      return 'released';
    });
  }
}
