import type { MessageInitShape } from '@bufbuild/protobuf';
import { ApiError } from '@wap/errors';
import { ledger } from '@wap/proto';
import { type Closable, fromCallError, type ServiceClient } from '@wap/rpc';

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

type SettleInit = MessageInitShape<typeof ledger.SettleRequestSchema>;

interface PendingSettle {
  request: SettleInit;
  resolve(answer: ledger.SettleResponse): void;
  reject(err: unknown): void;
}

/**
 * Settles in batches: a settle goes to the ledger at once while none is out,
 * and those that arrive meanwhile leave together (one SettleBatch) when it
 * answers. A quiet crawl waits for nothing; a busy one makes one ledger call
 * for many pages. Each settle keeps its own key and its own answer or refusal.
 */
export class SettleBatcher {
  private readonly queue: PendingSettle[] = [];
  private sending = false;

  constructor(
    private readonly client: LedgerClient,
    private readonly maxBatch = 64,
  ) {}

  settle(request: SettleInit): Promise<ledger.SettleResponse> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.sending || this.queue.length === 0) return;
    this.sending = true;
    const batch = this.queue.splice(0, this.maxBatch);
    void this.send(batch).finally(() => {
      this.sending = false;
      this.pump();
    });
  }

  private async send(batch: PendingSettle[]): Promise<void> {
    try {
      const { outcomes } = await this.client.settleBatch({ settles: batch.map((p) => p.request) });
      for (const [i, pending] of batch.entries()) {
        const outcome = outcomes[i]?.outcome;
        if (outcome?.case === 'settled') pending.resolve(outcome.value);
        else pending.reject(outcome?.case === 'error' ? fromCallError(outcome.value) : new ApiError('internal'));
      }
    } catch (err) {
      // Nothing is known of any of them: each caller retries its own (the key charges once).
      for (const pending of batch) pending.reject(err);
    }
  }
}
