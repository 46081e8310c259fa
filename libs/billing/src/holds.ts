import type { MessageInitShape } from '@bufbuild/protobuf';
import { isApiError } from '@wap/errors';
import { meters } from '@wap/plans';
import { ledger } from '@wap/proto';
import type { LedgerClient } from './ledger.js';
import { type MeterQuantity, priceUsage } from './prices.js';

/** Who pays and for what: every key of the charge derives from the operation id. */
export interface Charge {
  workspaceId: string;
  /** Minted by the gateway (decision 0009); never a value a client sets alone. */
  operationId: string;
  /** The capability that spends, e.g. `scrape`; usage rows are grouped by it. */
  capability: string;
  /** What the work is (a crawl id, a URL), shown in usage rows. */
  reference?: string;
}

export type MeterInit = MessageInitShape<typeof ledger.MeterQuantitySchema>;

/** Quantities as the ledger contract takes them (zero quantities left out). */
export const toMeters = (quantities: readonly MeterQuantity[]): MeterInit[] =>
  quantities.filter((q) => q.quantity > 0n).map((q) => ({ meter: meters.toEnum(q.meter), quantity: q.quantity }));

export const NO_USAGE: ledger.UsageSummary = { $typeName: 'wap.billing.v1.UsageSummary', meters: [], millicredits: 0n };

/** A void refused for a moment (the ledger or its database away: a restart, a failover), worth trying again. */
const passing = (err: unknown) =>
  isApiError(err) &&
  (err.code === 'no_capacity' || err.code === 'capability_unavailable' || err.code === 'deadline_exceeded');

/**
 * Voids a hold, and when the ledger cannot take it right now keeps trying in the background
 * (every `everyMs`, until the hold would lapse by itself), so the credits it holds come back
 * as soon as the ledger does rather than at the hold's expiry. A void is idempotent: a
 * resolved hold answers the same. Nothing waits for the retries; they keep no process alive.
 */
export async function releaseHold(
  client: LedgerClient,
  holdId: string,
  ttlSeconds: number,
  everyMs = 1_000,
): Promise<void> {
  const until = Date.now() + ttlSeconds * 1_000;
  const attempt = async (): Promise<void> => {
    try {
      await client.void({ holdId });
    } catch (err) {
      if (!passing(err) || Date.now() + everyMs >= until) return;
      setTimeout(() => void attempt(), everyMs).unref();
    }
  };
  await attempt();
}

/**
 * Per-unit work (a page, a search): holds the most the work may cost, runs
 * it, settles what it says it used, and voids the rest whatever happens, so
 * work that fails is never billed. A retried operation is billed once. Work
 * that turns out to have used more than was held (a PDF of many pages, where
 * one page was held) is held again for what it used before it settles: when
 * the balance cannot hold that, the answer is `quota_exceeded` and nothing is
 * billed.
 */
export async function billed<T>(
  client: LedgerClient,
  charge: Charge,
  most: readonly MeterQuantity[],
  work: () => Promise<{ result: T; used: readonly MeterQuantity[] }>,
  ttlSeconds = 300,
): Promise<{ result: T; usage: ledger.UsageSummary }> {
  const prefix = `${charge.capability}:${charge.operationId}`;
  const authorize = (key: string, millicredits: bigint) =>
    client.authorize({
      workspaceId: charge.workspaceId,
      idempotencyKey: key,
      capability: charge.capability,
      millicredits,
      ttlSeconds,
      reference: charge.reference ?? charge.operationId,
    });
  const held = priceUsage(most).millicredits;
  let holdId = (await authorize(`${prefix}:hold`, held)).holdId;
  let resolved = false;
  try {
    const { result, used } = await work();
    const settles = toMeters(used);
    if (settles.length === 0) return { result, usage: NO_USAGE };
    const price = priceUsage(used).millicredits;
    if (price > held) {
      await client.void({ holdId });
      holdId = (await authorize(`${prefix}:hold:${price}`, price)).holdId;
    }
    // Named as its call, so a retry is the same request whether it held alone or drew on a hold taken
    // ahead (decision 0031); the usage row's reference is the hold's either way.
    const settled = await client.settle({
      holdId,
      idempotencyKey: `${prefix}:settle`,
      meters: settles,
      reference: charge.reference ?? charge.operationId,
    });
    // A settle that used the whole hold resolved it; only a remainder needs releasing.
    resolved = settled.holdRemainingMillicredits === 0n;
    return { result, usage: settled.usage ?? NO_USAGE };
  } finally {
    // The hold also lapses by itself; through an outage of the ledger it is released as soon as it is back.
    if (!resolved) await releaseHold(client, holdId, ttlSeconds);
  }
}
