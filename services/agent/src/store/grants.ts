// What a run may use beyond its task (docs/secrets.md): the secrets and
// integrations its submit named and its purchase limits. Written in the
// submit's transaction; the run loop reads them at its start.
import type { Prisma } from '../generated/prisma/client.js';
import type { AgentDatabase } from './database.js';

/** A run's purchase limits, minor units of `currency`. */
export interface PurchaseLimits {
  spendCap: number;
  perPurchaseLimit: number | null;
  currency: string;
  /** Hosts it may buy from (each covering its subdomains); empty: any. */
  merchants: string[];
}

export interface NewGrants {
  /** The handles as named, and the secrets they named then. */
  secrets: { handle: string; id: string }[];
  /** Each integration with its tools hash as submitted. */
  integrations: { id: string; toolsHash: string }[];
  purchases: PurchaseLimits | undefined;
}

/** A run's grants as the loop reads them: secrets by handle and kind (never a value). */
export interface RunGrants {
  secrets: { handle: string; kind: string; last4: string | null; deleted: boolean }[];
  integrations: { id: string; toolsHash: string }[];
  purchases: PurchaseLimits | undefined;
}

/** A submit that names no secret, integration or purchase limit grants nothing: no row is written. */
export const grantsNothing = (g: NewGrants): boolean =>
  g.secrets.length === 0 && g.integrations.length === 0 && !g.purchases;

export class GrantStore {
  constructor(private readonly db: AgentDatabase) {}

  /** Writes the grants of a run being submitted, inside its transaction; nothing for a run that names none. */
  async write(tx: Prisma.TransactionClient, runId: string, g: NewGrants): Promise<void> {
    if (grantsNothing(g)) return;
    await tx.runGrant.create({
      data: {
        runId,
        secretHandles: g.secrets.map((s) => s.handle),
        integrationIds: g.integrations.map((i) => i.id),
        integrationTools: Object.fromEntries(g.integrations.map((i) => [i.id, i.toolsHash])),
        spendCap: g.purchases?.spendCap ?? null,
        perPurchaseLimit: g.purchases?.perPurchaseLimit ?? null,
        currency: g.purchases?.currency ?? null,
        merchants: g.purchases?.merchants ?? [],
      },
    });
    if (g.secrets.length > 0)
      await tx.runSecret.createMany({ data: g.secrets.map((s) => ({ runId, secretId: s.id })) });
  }

  /** The run's grants; a handle whose secret was deleted since is there with `deleted`. */
  async forRun(runId: string): Promise<RunGrants> {
    const grant = await this.db.runGrant.findUnique({ where: { runId } });
    if (!grant) return { secrets: [], integrations: [], purchases: undefined };
    const linked = await this.db.secret.findMany({
      where: { runs: { some: { runId } } },
      select: { handle: true, kind: true, last4: true },
    });
    const byHandle = new Map(linked.map((s) => [s.handle, s]));
    const tools = grant.integrationTools as Record<string, string>;
    return {
      secrets: grant.secretHandles.map((handle) => {
        const s = byHandle.get(handle);
        return s
          ? { handle, kind: s.kind, last4: s.last4, deleted: false }
          : { handle, kind: '', last4: null, deleted: true };
      }),
      integrations: grant.integrationIds.map((id) => ({ id, toolsHash: tools[id] ?? '' })),
      purchases:
        grant.spendCap === null
          ? undefined
          : {
              spendCap: grant.spendCap,
              perPurchaseLimit: grant.perPurchaseLimit,
              currency: grant.currency ?? '',
              merchants: grant.merchants,
            },
    };
  }
}
