import type { PooledDatabase } from '@wap/db';
import type { PlanName } from '@wap/plans';
import { mintApiKey, SURFACES, type Surface } from '../domain/credentials.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { type ApiKeyCache, changeAndAwaitGateways, keyChange, workspaceChange } from '../store/api-key-cache.js';
import { ConsoleSessionStore, type Role } from '../store/console-sessions.js';
import type { KeyUses } from '../store/key-uses.js';
import { hashPassword } from './passwords.js';
import { OAuthStore } from './store.js';

/** Who is calling: resolved from a credential on every request. */
export interface Principal {
  workspaceId: string;
  plan: PlanName;
  credential:
    | { kind: 'api_key'; keyId: string }
    | { kind: 'oauth_token'; tokenId: string }
    /** A person signed in to the web console (docs/console.md), on the REST surface only. */
    | { kind: 'console_session'; sessionId: string; userId: string; role: Role };
  surfaces: ReadonlySet<Surface>;
}

/** What a membership change would do to the workspace's owners, when it is refused. */
export type MembershipChange = { done: true } | { done: false; reason: 'not_member' | 'last_owner' };

export interface ApiKeyRow {
  workspaceId: string;
  plan: PlanName;
  secretHash: Uint8Array;
  revoked: boolean;
  surfaces: ReadonlySet<Surface>;
}

/** Identity rows of the gateway database; nothing else touches them. */
export class IdentityStore {
  private readonly db: PrismaClient;

  /** OAuth clients, codes and tokens (docs/oauth.md). */
  readonly oauth: OAuthStore;

  /** The web console's sign-ins (docs/console.md). */
  readonly consoleSessions: ConsoleSessionStore;

  constructor(
    /** Prisma for the rest; its pool for the hot path (a lookup per request, when not cached) and the announced writes. */
    private readonly database: PooledDatabase<PrismaClient>,
    /** The gateway's; without one (the admin command) every lookup reads the database. */
    private readonly cache?: ApiKeyCache<ApiKeyRow>,
    /** Records keys' last use (the gateway's); without it nothing is recorded. */
    private readonly keyUses?: KeyUses,
  ) {
    this.db = database.prisma;
    this.oauth = new OAuthStore(database);
    this.consoleSessions = new ConsoleSessionStore(database);
  }

  /** A local account (docs/oauth.md); the password, when given, stored as argon2id. */
  async createUser(email: string, password?: string) {
    return this.db.user.create({
      data: { email: email.trim().toLowerCase(), ...(password && { passwordHash: await hashPassword(password) }) },
    });
  }

  async setPassword(email: string, password: string) {
    return this.db.user.update({
      where: { email: email.trim().toLowerCase() },
      data: { passwordHash: await hashPassword(password) },
    });
  }

  async addMember(workspaceId: string, email: string, role: 'owner' | 'member' = 'member') {
    const user = await this.db.user.findUniqueOrThrow({ where: { email: email.trim().toLowerCase() } });
    return this.db.membership.upsert({
      where: { workspaceId_userId: { workspaceId, userId: user.id } },
      create: { workspaceId, userId: user.id, role },
      update: { role },
    });
  }

  /**
   * Removes the user from the workspace. Their tokens and console sessions
   * for it stop working on the next request on every gateway (both are read
   * joined to their membership on every request); the tokens are revoked for
   * good, and the sessions' rows go with the membership (ON DELETE CASCADE).
   */
  async removeMember(workspaceId: string, email: string): Promise<{ removed: boolean; tokensRevoked: number }> {
    const user = await this.db.user.findUnique({ where: { email: email.trim().toLowerCase() } });
    if (!user) return { removed: false, tokensRevoked: 0 };
    const { count } = await this.db.membership.deleteMany({ where: { workspaceId, userId: user.id } });
    const revoked = await this.revokeTokensOf(workspaceId, user.id);
    return { removed: count === 1, tokensRevoked: revoked };
  }

  private async revokeTokensOf(workspaceId: string, userId: string): Promise<number> {
    const { count } = await this.db.oAuthToken.updateMany({
      where: { userId, workspaceId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    return count;
  }

  /** The workspace's members, first added first. */
  async listMembers(workspaceId: string) {
    const rows = await this.db.membership.findMany({
      where: { workspaceId },
      include: { user: { select: { email: true } } },
      orderBy: { createdAt: 'asc' },
    });
    return rows.map((m) => ({ userId: m.userId, email: m.user.email, role: m.role, addedAt: m.createdAt }));
  }

  /**
   * Removes a member, or sets a member's role, unless the workspace would be
   * left without an owner. The owners' rows are locked first, so two owners
   * removing each other at once cannot both succeed. A removed member is cut
   * off as by removeMember.
   */
  async changeMember(
    workspaceId: string,
    userId: string,
    change: 'remove' | { role: Role },
  ): Promise<MembershipChange> {
    const outcome = await this.database.transaction(async (client): Promise<MembershipChange> => {
      const owners = await client.query<{ user_id: string }>(
        "SELECT user_id FROM memberships WHERE workspace_id = $1 AND role = 'owner' FOR UPDATE",
        [workspaceId],
      );
      const target = await client.query<{ role: Role }>(
        'SELECT role::text AS role FROM memberships WHERE workspace_id = $1 AND user_id = $2 FOR UPDATE',
        [workspaceId, userId],
      );
      const role = target.rows[0]?.role;
      if (!role) return { done: false, reason: 'not_member' };
      const staysOwner = change !== 'remove' && change.role === 'owner';
      if (role === 'owner' && !staysOwner && owners.rows.length <= 1) return { done: false, reason: 'last_owner' };
      if (change === 'remove')
        await client.query('DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2', [workspaceId, userId]);
      else
        await client.query('UPDATE memberships SET role = $3::"Role" WHERE workspace_id = $1 AND user_id = $2', [
          workspaceId,
          userId,
          change.role,
        ]);
      return { done: true };
    });
    if (outcome.done && change === 'remove') await this.revokeTokensOf(workspaceId, userId);
    return outcome;
  }

  /** Signs the user out everywhere: every OAuth token they hold is revoked. */
  async signOut(email: string): Promise<number> {
    const user = await this.db.user.findUnique({ where: { email: email.trim().toLowerCase() } });
    return user ? this.oauth.revokeUser(user.id) : 0;
  }

  async createWorkspace(name: string, plan: PlanName = 'free') {
    return this.db.workspace.create({ data: { name, plan } });
  }

  async findWorkspace(idOrName: string) {
    const byId = /^[0-9a-f-]{36}$/.test(idOrName)
      ? await this.db.workspace.findUnique({ where: { id: idOrName } })
      : null;
    return byId ?? this.db.workspace.findFirst({ where: { name: idOrName }, orderBy: { createdAt: 'asc' } });
  }

  /** Returns once every gateway has dropped what it cached of the workspace (or after 2 s). */
  async setPlan(workspaceId: string, plan: PlanName) {
    await changeAndAwaitGateways(
      this.database.pool,
      workspaceChange(workspaceId),
      async (changeId) =>
        (await this.announcedUpdate(changeId, 'UPDATE workspaces SET plan = $2::"Plan" WHERE id = $1::uuid', [
          workspaceId,
          plan,
        ])) === 1,
    );
    return this.db.workspace.findUniqueOrThrow({ where: { id: workspaceId } });
  }

  /** One UPDATE whose change notifications carry `changeId` (see changeAndAwaitGateways); answers the rows changed. */
  private announcedUpdate(changeId: string, sql: string, values: unknown[]): Promise<number> {
    return this.database.transaction(async (client) => {
      await client.query("SELECT set_config('wap.change_id', $1, true)", [changeId]);
      return (await client.query(sql, values)).rowCount ?? 0;
    });
  }

  /** Mints a key, valid on the given surfaces; the returned credential is the only copy of its secret. */
  async createApiKey(workspaceId: string, name: string, surfaces: readonly Surface[] = SURFACES) {
    if (surfaces.length === 0) throw new Error('a key must be valid on at least one surface');
    const key = mintApiKey();
    const row = await this.db.apiKey.create({
      data: {
        keyId: key.keyId,
        workspaceId,
        name,
        secretHash: new Uint8Array(key.secretHash),
        surfaces: [...new Set(surfaces)],
      },
    });
    return {
      keyId: key.keyId,
      credential: key.credential,
      name: row.name,
      surfaces: row.surfaces,
      createdAt: row.createdAt,
    };
  }

  /**
   * Revokes a live key and returns once every gateway has dropped it from its
   * cache, so the next request with it is refused wherever it lands. A gateway
   * that does not answer within 2 s is counted in `gateways` but not in
   * `acknowledged`.
   */
  async revokeApiKey(keyId: string): Promise<{ revoked: boolean; gateways: number; acknowledged: number }> {
    const { changed, gateways, acknowledged } = await changeAndAwaitGateways(
      this.database.pool,
      keyChange(keyId),
      async (changeId) =>
        (await this.announcedUpdate(
          changeId,
          'UPDATE api_keys SET revoked_at = now() WHERE key_id = $1 AND revoked_at IS NULL',
          [keyId],
        )) === 1,
    );
    return { revoked: changed, gateways, acknowledged };
  }

  async listApiKeys(workspaceId: string) {
    return this.db.apiKey.findMany({
      where: { workspaceId },
      select: { keyId: true, name: true, surfaces: true, createdAt: true, lastUsedAt: true, revokedAt: true },
      orderBy: { createdAt: 'asc' },
    });
  }

  /** The key of the workspace, revoked or not; undefined for another workspace's. */
  async findApiKey(workspaceId: string, keyId: string) {
    return (await this.db.apiKey.findFirst({ where: { workspaceId, keyId }, select: { keyId: true } })) ?? undefined;
  }

  /** The key authenticated a request: remembered as its last use (KeyUses: a Map check here, the write later). */
  keyUsed(keyId: string): void {
    this.keyUses?.used(keyId);
  }

  /** The key's row: from the cache while it is valid, else one indexed read. */
  apiKey(keyId: string): Promise<ApiKeyRow | undefined> {
    return this.cache ? this.cache.get(keyId, (id) => this.readApiKey(id)) : this.readApiKey(keyId);
  }

  private async readApiKey(keyId: string): Promise<ApiKeyRow | undefined> {
    const { rows } = await this.database.pool.query<{
      secret_hash: Buffer;
      revoked: boolean;
      workspace_id: string;
      plan: PlanName;
      surfaces: Surface[] | null;
    }>({
      // Named, so each connection parses and plans it once.
      name: 'api_key_lookup',
      text: `SELECT k.secret_hash, k.revoked_at IS NOT NULL AS revoked, w.id AS workspace_id, w.plan::text AS plan,
                     k.surfaces::text[] AS surfaces
               FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE k.key_id = $1`,
      values: [keyId],
    });
    const hit = rows[0];
    return (
      hit && {
        workspaceId: hit.workspace_id,
        plan: hit.plan,
        secretHash: hit.secret_hash,
        revoked: hit.revoked,
        surfaces: new Set(hit.surfaces ?? []),
      }
    );
  }
}
