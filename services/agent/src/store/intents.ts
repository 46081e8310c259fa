// Secret intents (docs/secrets.md): each fill of a secret is a single-use
// permission bound to one run, one handle and the host it is filled on. The
// run loop creates one when the model asks to fill a handle, and redeems it
// once, at the moment of the fill: the redeem is one UPDATE that marks it
// spent only if it is not already, so two redeems of the same intent cannot
// both get the value.
import { randomBytes } from 'node:crypto';
import { ApiError } from '@wap/errors';
import { hostAllowed, type SecretKind, type SecretValue } from '../domain/secrets.js';
import type { AgentDatabase } from './database.js';
import type { SealedRow, SecretStore } from './secrets.js';

/** How long an intent may wait for its fill. */
export const INTENT_TTL_MS = 5 * 60_000;

/** What a use is bound to. */
export interface IntentBinding {
  runId: string;
  handle: string;
  /** The host of the page the value goes into. */
  host: string;
}

export interface Intent {
  id: string;
  kind: SecretKind;
  expiresAt: Date;
}

export class SecretIntents {
  constructor(
    private readonly db: AgentDatabase,
    private readonly secrets: SecretStore,
  ) {}

  /**
   * A permission to fill `handle` on `host` once, in `runId`. Refused with
   * run_secret_undeliverable when the run did not name the handle (`not_granted`)
   * or its secret was deleted since (`deleted`); secret_intent_invalid when the
   * host is not one of the secret's domains, or the run has ended.
   */
  async create(b: IntentBinding): Promise<Intent> {
    const host = b.host.toLowerCase();
    const [run] = await this.db.$queryRaw<{ status: string; handles: string[] | null }[]>`
      SELECT r.status, g.secret_handles AS handles
        FROM agent_runs r LEFT JOIN run_grants g ON g.run_id = r.id
       WHERE r.id = ${b.runId}::uuid`;
    if (!run?.handles?.includes(b.handle))
      throw new ApiError('run_secret_undeliverable', { handle: b.handle, reason: 'not_granted' });
    if (run.status === 'settled')
      throw new ApiError('secret_intent_invalid', { handle: b.handle, reason: 'run_ended' });
    const [secret] = await this.db.$queryRaw<{ id: string; kind: SecretKind; domains: string[] }[]>`
      SELECT s.id, s.kind, s.domains FROM run_secrets rs JOIN secrets s ON s.id = rs.secret_id
       WHERE rs.run_id = ${b.runId}::uuid AND s.handle = ${b.handle}`;
    if (!secret) throw new ApiError('run_secret_undeliverable', { handle: b.handle, reason: 'deleted' });
    if (!hostAllowed(host, secret.domains))
      throw new ApiError('secret_intent_invalid', { handle: b.handle, reason: 'domain' });
    const id = `si_${randomBytes(24).toString('base64url')}`;
    const expiresAt = new Date(Date.now() + INTENT_TTL_MS);
    await this.db.secretIntent.create({
      data: { id, runId: b.runId, secretId: secret.id, domain: host, expiresAt },
    });
    return { id, kind: secret.kind, expiresAt };
  }

  /**
   * The value, once: marks the intent spent in the statement that finds it
   * unspent, unexpired and bound to exactly this run, handle and host.
   * secret_intent_spent when it was redeemed before; secret_intent_invalid when
   * it is unknown, expired or bound to something else; run_secret_undeliverable
   * (`deleted`) when its secret was deleted after it was made.
   */
  async redeem(intentId: string, b: IntentBinding): Promise<SecretValue> {
    const host = b.host.toLowerCase();
    const [row] = await this.db.$queryRaw<SealedRow[]>`
      UPDATE secret_intents i SET spent_at = now()
        FROM secrets s
       WHERE i.id = ${intentId} AND s.id = i.secret_id
         AND i.run_id = ${b.runId}::uuid AND s.handle = ${b.handle} AND i.domain = ${host}
         AND i.spent_at IS NULL AND i.expires_at > now()
      RETURNING s.id, s.workspace_id AS "workspaceId", s.sealed, s.wrapped_key AS "wrappedKey", s.kek_id AS "kekId"`;
    if (row) return this.secrets.decrypt(row);
    throw await this.refusal(intentId, b, host);
  }

  /** Why a redeem found nothing to spend. */
  private async refusal(intentId: string, b: IntentBinding, host: string): Promise<ApiError> {
    const [intent] = await this.db.$queryRaw<
      { runId: string; handle: string; domain: string; spent: boolean; expired: boolean }[]
    >`
      SELECT i.run_id::text AS "runId", s.handle, i.domain, i.spent_at IS NOT NULL AS spent,
             i.expires_at <= now() AS expired
        FROM secret_intents i JOIN secrets s ON s.id = i.secret_id WHERE i.id = ${intentId}`;
    const handle = b.handle;
    if (!intent) {
      // Its secret's deletion took the intent with it: say so, rather than that it never was.
      const [grant] = await this.db.$queryRaw<{ granted: boolean; linked: boolean }[]>`
        SELECT ${handle} = ANY (g.secret_handles) AS granted,
               EXISTS (SELECT 1 FROM run_secrets rs JOIN secrets s ON s.id = rs.secret_id
                        WHERE rs.run_id = g.run_id AND s.handle = ${handle}) AS linked
          FROM run_grants g WHERE g.run_id = ${b.runId}::uuid`;
      if (!grant?.granted) return new ApiError('run_secret_undeliverable', { handle, reason: 'not_granted' });
      return grant.linked
        ? new ApiError('secret_intent_invalid', { handle, reason: 'unknown' })
        : new ApiError('run_secret_undeliverable', { handle, reason: 'deleted' });
    }
    if (intent.runId !== b.runId || intent.handle !== handle || intent.domain !== host)
      return new ApiError('secret_intent_invalid', { handle, reason: 'binding' });
    if (intent.spent) return new ApiError('secret_intent_spent', { handle });
    return new ApiError('secret_intent_invalid', { handle, reason: intent.expired ? 'expired' : 'unknown' });
  }
}
