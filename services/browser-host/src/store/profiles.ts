// Profiles and their saved states (docs/profiles.md), in browser-host's
// database, which every replica shares: created, listed by a label glob,
// leased to one live session at a time (a lease its host renews, so a host
// killed with -9 lets go within the TTL), saved atomically when a session
// ends cleanly, and deleted for good.
import { createHash, randomUUID } from 'node:crypto';
import type { PrismaClient, Profile } from '../generated/prisma/client.js';

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
  constructor(private readonly db: PrismaClient) {}

  create(p: NewProfile): Promise<ProfileRow> {
    return this.db.profile.create({
      data: {
        id: randomUUID(),
        workspaceId: p.workspaceId,
        label: p.label,
        exitId: p.exit.id,
        exitKind: p.exit.kind,
        exitRegion: p.exit.region,
      },
    });
  }

  get(workspaceId: string, id: string): Promise<ProfileRow | null> {
    return this.db.profile.findFirst({ where: { id, workspaceId } });
  }

  /** One page, newest first; one more than `limit` tells whether more follow. */
  list(f: ProfileFilter): Promise<ProfileRow[]> {
    const like = f.labelGlob === undefined ? null : likeOfGlob(f.labelGlob);
    const afterAt = f.after?.createdAt ?? null;
    const afterId = f.after?.id ?? null;
    return this.db.$queryRaw<ProfileRow[]>`
      SELECT id, workspace_id AS "workspaceId", label, exit_id AS "exitId", exit_kind AS "exitKind",
             exit_region AS "exitRegion", created_at AS "createdAt", last_used_at AS "lastUsedAt",
             state_id AS "stateId", size_bytes AS "sizeBytes", lease_session AS "leaseSession",
             lease_host AS "leaseHost", lease_expires_at AS "leaseExpiresAt"
        FROM profiles
       WHERE workspace_id = ${f.workspaceId}
         AND (${like}::text IS NULL OR label LIKE ${like}::text ESCAPE '\\')
         AND (${afterAt}::timestamptz IS NULL OR (created_at, id) < (${afterAt}::timestamptz, ${afterId}::uuid))
       ORDER BY created_at DESC, id DESC
       LIMIT ${f.limit + 1}`;
  }

  /** Deletes the profile and every state it had; 'in_use' while a session holds it. */
  delete(workspaceId: string, id: string): Promise<'deleted' | 'not_found' | 'in_use'> {
    return this.db.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<Pick<Profile, 'leaseSession' | 'leaseExpiresAt'>[]>`
        SELECT lease_session AS "leaseSession", lease_expires_at AS "leaseExpiresAt"
          FROM profiles WHERE id = ${id}::uuid AND workspace_id = ${workspaceId} FOR UPDATE`;
      if (!row) return 'not_found';
      if (leased(row)) return 'in_use';
      await tx.profileState.deleteMany({ where: { profileId: id } });
      await tx.profile.delete({ where: { id } });
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
    const [row] = await this.db.$queryRaw<{ id: string }[]>`
      UPDATE profiles
         SET lease_session = ${holder.sessionId}::uuid, lease_host = ${holder.host},
             lease_expires_at = now() + make_interval(secs => ${ttlMs / 1000}), last_used_at = now()
       WHERE id = ${id}::uuid AND workspace_id = ${workspaceId}
         AND (lease_session IS NULL OR lease_expires_at <= now())
       RETURNING id`;
    if (row) return (await this.db.profile.findUnique({ where: { id } })) as ProfileRow;
    return (await this.get(workspaceId, id)) ? 'in_use' : 'not_found';
  }

  /** Moves the leases these sessions hold TTL into the future (their host's heartbeat). */
  async renew(sessionIds: readonly string[], ttlMs: number): Promise<void> {
    if (sessionIds.length === 0) return;
    await this.db.$executeRaw`
      UPDATE profiles SET lease_expires_at = now() + make_interval(secs => ${ttlMs / 1000})
       WHERE lease_session = ANY(${[...sessionIds]}::uuid[])`;
  }

  /** The current state as stored, if a session saved one. */
  async state(id: string): Promise<Buffer | undefined> {
    const row = await this.db.profile.findUnique({ where: { id }, select: { stateId: true } });
    if (!row?.stateId) return undefined;
    const state = await this.db.profileState.findUnique({ where: { id: row.stateId }, select: { data: true } });
    return state ? Buffer.from(state.data) : undefined;
  }

  /**
   * Ends the session's lease, first saving `sealed` as the profile's state
   * when given: the new state and the pointer to it in one transaction, the
   * old state deleted in it too. 'lost' when the session no longer held the
   * lease (it lapsed and another took it): nothing is saved over that one.
   */
  release(id: string, sessionId: string, sealed?: Buffer): Promise<'released' | 'lost'> {
    return this.db.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ stateId: string | null }[]>`
        SELECT state_id AS "stateId" FROM profiles
         WHERE id = ${id}::uuid AND lease_session = ${sessionId}::uuid FOR UPDATE`;
      if (!row) return 'lost';
      if (sealed) {
        const stateId = randomUUID();
        await tx.profileState.create({
          data: {
            id: stateId,
            profileId: id,
            data: sealed as Uint8Array<ArrayBuffer>,
            sha256: createHash('sha256').update(sealed).digest('hex'),
          },
        });
        await tx.profile.update({ where: { id }, data: { stateId, sizeBytes: BigInt(sealed.length) } });
        await tx.profileState.deleteMany({ where: { profileId: id, id: { not: stateId } } });
      }
      await tx.profile.update({
        where: { id },
        data: { leaseSession: null, leaseHost: null, leaseExpiresAt: null, lastUsedAt: new Date() },
      });
      return 'released';
    });
  }
}
