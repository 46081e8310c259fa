import type { MessageInitShape } from '@bufbuild/protobuf';
import { ApiError } from '@wap/errors';
import type { ledger } from '@wap/proto';
import { fromCallError } from '@wap/rpc';
import { Batcher } from '@wap/service';
import type { LedgerClient } from './ledger.js';

type SettleInit = MessageInitShape<typeof ledger.SettleRequestSchema>;

/**
 * Settles in batches: a settle goes to the ledger at once while none is out,
 * and those that arrive meanwhile leave together (one SettleBatch) when it
 * answers. Each settle keeps its own key and its own answer or refusal;
 * when the call fails, nothing is known of any of them (settle again: the key
 * charges once).
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
