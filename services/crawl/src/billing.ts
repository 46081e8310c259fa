import { ledger } from '@wap/proto';
import type { Closable, ServiceClient } from '@wap/rpc';

export type LedgerClient = ServiceClient<(typeof ledger.LedgerService)['method']> & Closable;

/** One page load, in millicredits (spec part 8: 1 credit per page). */
export const PAGE_LOAD_MC = 1000n;

/**
 * Holds the most a unit of work may cost before doing it, settles what it
 * used, and voids the rest whatever happens: work that fails is never billed.
 * Keys derive from the caller's request id, so a retried request is billed once.
 */
export async function billedPage<T>(
  client: LedgerClient,
  charge: { workspaceId: string; requestId: string; capability: string; reference?: string },
  work: () => Promise<T>,
): Promise<{ result: T; usage: ledger.UsageSummary }> {
  const hold = await client.authorize({
    workspaceId: charge.workspaceId,
    idempotencyKey: `${charge.capability}:${charge.requestId}:hold`,
    capability: charge.capability,
    millicredits: PAGE_LOAD_MC,
    ttlSeconds: 300,
    reference: charge.reference ?? charge.requestId,
  });
  let result: T;
  try {
    result = await work();
  } catch (err) {
    await client.void({ holdId: hold.holdId }).catch(() => undefined); // the hold also lapses by itself
    throw err;
  }
  const settled = await client.settle({
    holdId: hold.holdId,
    idempotencyKey: `${charge.capability}:${charge.requestId}:settle`,
    meters: [{ meter: ledger.Meter.PAGE_LOAD, quantity: 1n }],
  });
  // A settle that used the whole hold resolved it; only a remainder needs releasing.
  if (settled.holdRemainingMillicredits > 0n) await client.void({ holdId: hold.holdId }).catch(() => undefined);
  return { result, usage: settled.usage ?? { $typeName: 'wap.billing.v1.UsageSummary', meters: [], millicredits: 0n } };
}
