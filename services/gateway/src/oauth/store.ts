// The OAuth rows (docs/oauth.md): clients that registered themselves, codes
// good once, and opaque tokens stored as SHA-256 hashes (256 random bits each:
// nothing to brute-force). Every request with a token reads its row joined to
// the membership it acts under, so a revoked token, a signed-out user or a
// removed member is cut off on the next request on every gateway replica.
// Failed sign-ins are counted here too, for every replica alike.
import { randomBytes, randomUUID } from 'node:crypto';
import type { PooledDatabase } from '@wap/db';
import type { PlanName } from '@wap/plans';
import { hashSecret, type Surface } from '../domain/credentials.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { verifyPassword } from './passwords.js';
import {
  heldKey,
  KNOWN_ADDRESS_MS,
  policyArrays,
  SIGN_IN_POLICY,
  type SignInKey,
  type SignInKeys,
  signInKeys,
} from './sign-in-limits.js';

export const ACCESS_TTL_MS = 3_600_000;
export const REFRESH_TTL_MS = 30 * 86_400_000;
export const CODE_TTL_MS = 600_000;
/** As long as the pages' signed state lasts (STEP_TTL). */
export const CONSENT_TTL_MS = 600_000;

export interface Grant {
  clientId: string;
  userId: string;
  workspaceId: string;
  surface: Surface;
  scope: string;
  resource: string;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  scope: string;
}

export interface TokenPrincipal {
  workspaceId: string;
  plan: PlanName;
  surface: Surface;
  tokenId: string;
}

/** Whether an attempt to sign in may check its password; counted as a failure until `signedIn`. */
export type SignInTake =
  | { allowed: true }
  | { allowed: false; retryAfterSeconds: number; key: SignInKey; limit: number; failures: number };

/** A password sign-in (OAuth's page or the console): the user, held by the throttle, or refused. */
export type SignInAttempt =
  | { outcome: 'signed_in'; user: { id: string; email: string } }
  | { outcome: 'held'; take: Extract<SignInTake, { allowed: false }> }
  | { outcome: 'refused' };

/** A token's stored form (a copy Prisma takes as bytes). */
const hashOf = (token: string) => new Uint8Array(hashSecret(token));

const mint = (prefix: 'oat_' | 'ort_' | 'oac_') => `${prefix}${randomBytes(32).toString('base64url')}`;

export class OAuthStore {
  private readonly db: PrismaClient;

  constructor(private readonly database: PooledDatabase<PrismaClient>) {
    this.db = database.prisma;
  }

  registerClient(name: string, redirectUris: string[]) {
    return this.db.oAuthClient.create({
      data: { id: `wapc_${randomBytes(16).toString('base64url')}`, name, redirectUris },
    });
  }

  client(id: string) {
    return this.db.oAuthClient.findUnique({ where: { id } });
  }

  /** The workspaces a user may act in. */
  memberships(userId: string) {
    return this.db.membership.findMany({
      where: { userId },
      include: { workspace: { select: { id: true, name: true } } },
      orderBy: { createdAt: 'asc' },
    });
  }

  userByEmail(email: string) {
    return this.db.user.findUnique({ where: { email: email.trim().toLowerCase() } });
  }

  /**
   * An attempt to sign in under `keys`, taken before its password is checked
   * (sign_in_take: every replica counts in one place, and guesses sent at
   * once meet one count): allowed and counted as a failure, or held.
   */
  async takeSignIn(keys: SignInKeys): Promise<SignInTake> {
    const { rows } = await this.database.pool.query<{
      allowed: boolean;
      retry_ms: number;
      held: number;
      held_failures: number;
    }>({
      name: 'sign_in_take',
      text: 'SELECT * FROM sign_in_take($1, $2, $3, $4, $5, $6)',
      values: [keys, ...policyArrays(), KNOWN_ADDRESS_MS],
    });
    const take = rows[0];
    if (!take) throw new Error('sign_in_take returned no row');
    if (take.allowed) return { allowed: true };
    const key = heldKey(take.held);
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil(take.retry_ms / 1000)),
      key,
      limit: SIGN_IN_POLICY[key].free,
      failures: take.held_failures,
    };
  }

  /** The attempt `takeSignIn` counted went through: the address and account start again (sign_in_succeeded). */
  async signedIn(keys: SignInKeys): Promise<void> {
    await this.database.pool.query({
      name: 'sign_in_succeeded',
      text: 'SELECT sign_in_succeeded($1, $2)',
      values: [keys, KNOWN_ADDRESS_MS],
    });
  }

  /**
   * Checks an email and password from `address` under the sign-in throttle
   * (docs/oauth.md, "Guessing passwords"): counted before the password is
   * checked, a held attempt checks nothing, and an unknown email costs the
   * same hash as a wrong password.
   */
  async attemptSignIn(email: string, password: string, address: string): Promise<SignInAttempt> {
    const keys = signInKeys(email, address);
    const take = await this.takeSignIn(keys);
    if (!take.allowed) return { outcome: 'held', take };
    const user = email ? await this.userByEmail(email) : null;
    const ok = await verifyPassword(password, user?.passwordHash);
    if (!user || !ok) return { outcome: 'refused' };
    await this.signedIn(keys);
    return { outcome: 'signed_in', user: { id: user.id, email: user.email } };
  }

  /** A consent page shown, with its nonce; now and then, those of pages never answered are dropped. */
  async createConsent(nonce: string): Promise<void> {
    await this.db.oAuthConsent.create({ data: { nonce, expiresAt: new Date(Date.now() + CONSENT_TTL_MS) } });
    if (Math.random() < 0.01) await this.db.oAuthConsent.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  }

  /** Spends a consent page's nonce: true for the one answer that does, false for any other, on any replica. */
  async spendConsent(nonce: string): Promise<boolean> {
    const { count } = await this.db.oAuthConsent.deleteMany({ where: { nonce, expiresAt: { gt: new Date() } } });
    return count === 1;
  }

  async createCode(grant: Grant & { redirectUri: string; codeChallenge: string }): Promise<string> {
    const code = mint('oac_');
    await this.db.oAuthCode.create({
      data: { ...grant, codeHash: hashOf(code), expiresAt: new Date(Date.now() + CODE_TTL_MS) },
    });
    return code;
  }

  /**
   * The code's grant, spent; undefined when it is unknown, expired or spent
   * already. A code presented a second time also revokes the tokens it gave
   * (RFC 6749 section 4.1.2).
   */
  async redeemCode(code: string) {
    return this.db.$transaction(async (tx) => {
      const codeHash = hashOf(code);
      const row = await tx.oAuthCode.findUnique({ where: { codeHash } });
      if (!row) return undefined;
      if (row.usedAt) {
        await tx.oAuthToken.updateMany({
          where: { familyId: familyOfCode(codeHash), revokedAt: null },
          data: { revokedAt: new Date() },
        });
        return undefined;
      }
      const spent = await tx.oAuthCode.updateMany({ where: { codeHash, usedAt: null }, data: { usedAt: new Date() } });
      if (spent.count !== 1 || row.expiresAt.getTime() < Date.now()) return undefined;
      return { ...row, familyId: familyOfCode(codeHash) };
    });
  }

  /** A new access and refresh token of `familyId` for the grant. */
  async issue(grant: Grant, familyId: string = randomUUID()): Promise<IssuedTokens> {
    const accessToken = mint('oat_');
    const refreshToken = mint('ort_');
    const now = Date.now();
    await this.db.oAuthToken.createMany({
      data: [
        {
          ...grant,
          kind: 'access',
          familyId,
          tokenHash: hashOf(accessToken),
          expiresAt: new Date(now + ACCESS_TTL_MS),
        },
        {
          ...grant,
          kind: 'refresh',
          familyId,
          tokenHash: hashOf(refreshToken),
          expiresAt: new Date(now + REFRESH_TTL_MS),
        },
      ],
    });
    return { accessToken, refreshToken, expiresIn: ACCESS_TTL_MS / 1000, scope: grant.scope };
  }

  /**
   * A refresh token's rotation: new tokens of its family, the old one spent.
   * One presented again (stolen and raced, or replayed) revokes the family;
   * an expired, revoked or unknown one, or one of another client, gives nothing.
   */
  async refresh(refreshToken: string, clientId: string): Promise<IssuedTokens | undefined> {
    const tokenHash = hashOf(refreshToken);
    const grant = await this.db.$transaction(async (tx) => {
      const row = await tx.oAuthToken.findUnique({ where: { tokenHash } });
      if (row?.kind !== 'refresh' || row.clientId !== clientId) return undefined;
      if (row.usedAt || row.revokedAt) {
        if (row.usedAt) await revokeFamily(tx, row.familyId);
        return undefined;
      }
      if (row.expiresAt.getTime() < Date.now()) return undefined;
      const spent = await tx.oAuthToken.updateMany({
        where: { tokenHash, usedAt: null, revokedAt: null },
        data: { usedAt: new Date() },
      });
      if (spent.count !== 1) {
        await revokeFamily(tx, row.familyId);
        return undefined;
      }
      const member = await tx.membership.findUnique({
        where: { workspaceId_userId: { workspaceId: row.workspaceId, userId: row.userId } },
      });
      if (!member) return undefined;
      return row;
    });
    if (!grant) return undefined;
    const { clientId: c, userId, workspaceId, surface, scope, resource, familyId } = grant;
    return this.issue({ clientId: c, userId, workspaceId, surface, scope, resource }, familyId);
  }

  /** Revokes the token's whole family (RFC 7009); nothing for a token it does not know. */
  async revoke(token: string): Promise<void> {
    const row = await this.db.oAuthToken.findUnique({ where: { tokenHash: hashOf(token) } });
    if (row) await revokeFamily(this.db, row.familyId);
  }

  /** Signs a user out everywhere: every token they hold, in every workspace. */
  async revokeUser(userId: string): Promise<number> {
    const { count } = await this.db.oAuthToken.updateMany({
      where: { userId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    return count;
  }

  /** The principal of an access token valid now, under a membership that still exists. */
  async principal(accessToken: string): Promise<TokenPrincipal | undefined> {
    const { rows } = await this.database.pool.query<{
      id: string;
      workspace_id: string;
      plan: PlanName;
      surface: Surface;
    }>({
      name: 'oauth_token_lookup',
      text: `SELECT t.id, t.workspace_id, w.plan::text AS plan, t.surface::text AS surface
               FROM oauth_tokens t
               JOIN memberships m ON m.workspace_id = t.workspace_id AND m.user_id = t.user_id
               JOIN workspaces w ON w.id = t.workspace_id
              WHERE t.token_hash = $1 AND t.kind = 'access' AND t.revoked_at IS NULL AND t.expires_at > now()`,
      values: [hashSecret(accessToken)],
    });
    const hit = rows[0];
    return hit && { workspaceId: hit.workspace_id, plan: hit.plan, surface: hit.surface, tokenId: hit.id };
  }
}

/** The family of the tokens a code gave: derived from the code, so a replayed code can find them. */
function familyOfCode(codeHash: Uint8Array): string {
  const h = Buffer.from(codeHash).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

async function revokeFamily(db: Pick<PrismaClient, 'oAuthToken'>, familyId: string): Promise<void> {
  await db.oAuthToken.updateMany({ where: { familyId, revokedAt: null }, data: { revokedAt: new Date() } });
}
