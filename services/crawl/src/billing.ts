import type { MessageInitShape } from '@bufbuild/protobuf';
import { ApiError } from '@wap/errors';
import { ledger } from '@wap/proto';
import { type Closable, fromCallError, type ServiceClient } from '@wap/rpc';
import { Batcher } from '@wap/service';

export type LedgerClient = ServiceClient<(typeof ledger.LedgerService)['method']> & Closable;

/** One page load, in millicredits (spec part 8: 1 credit per page). */
export const PAGE_LOAD_MC = 1000n;

/**
 * Holds the most a unit of work may cost before doing it, settles what it
 * used, and voids the rest whatever happens: work that fails is never billed.
 * Keys derive from the operation id the gateway minted, so a retried operation is billed once.
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

type SettleInit = MessageInitShape<typeof ledger.SettleRequestSchema>;

/**
 * A crawl's delivered pages are billed in blocks of this many, by `seq`
 * (docs/decisions/0006, point 14): block k holds the pages numbered
 * k·25 + 1 to k·25 + 25. The worker that delivers a block's last page settles
 * it; a closed crawl settles every block again, the last one with what it
 * holds. A block's settle is the same request whoever makes it, however often.
 */
export const PAGES_PER_BLOCK = 25;

export type BlockSettle = SettleInit & { idempotencyKey: string };

/** The settle of block `block` of a crawl, holding `pages` pages. */
export function blockSettle(crawlId: string, holdId: string, block: number, pages: number): BlockSettle {
  return {
    holdId,
    idempotencyKey: `crawl:${crawlId}:pages:${block}`,
    meters: [{ meter: ledger.Meter.PAGE_LOAD, quantity: BigInt(pages) }],
  };
}

/** The blocks of a crawl that delivered `completed` pages in all: full ones, then the remainder. */
export function crawlBlocks(completed: number): { block: number; pages: number }[] {
  const blocks: { block: number; pages: number }[] = [];
  for (let block = 0; block * PAGES_PER_BLOCK < completed; block++)
    blocks.push({ block, pages: Math.min(PAGES_PER_BLOCK, completed - block * PAGES_PER_BLOCK) });
  return blocks;
}

/**
 * Settles in batches: a settle goes to the ledger at once while none is out,
 * and those that arrive meanwhile leave together (one SettleBatch) when it
 * answers. Each settle keeps its own key and its own answer or refusal;
 * when the call fails, nothing is known of any of them (a crawl's block is
 * settled again when the crawl ends; the key charges once).
 */
export class SettleBatcher {
  private readonly batcher: Batcher<SettleInit, ledger.SettleResponse>;

  constructor(client: LedgerClient, maxBatch = 64) {
    this.batcher = new Batcher(
      async (settles) => {
        const { outcomes } = await client.settleBatch({ settles });
        return settles.map((_, i): PromiseSettledResult<ledger.SettleResponse> => {
          const outcome = outcomes[i]?.outcome;
          if (outcome?.case === 'settled') return { status: 'fulfilled', value: outcome.value };
          return {
            status: 'rejected',
            reason: outcome?.case === 'error' ? fromCallError(outcome.value) : new ApiError('internal'),
          };
        });
      },
      { maxInFlight: 1, maxBatch },
    );
  }

  settle(request: SettleInit): Promise<ledger.SettleResponse> {
    return this.batcher.call(request);
  }
}
