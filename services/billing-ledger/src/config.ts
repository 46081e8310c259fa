import { duration } from '@wap/config';
import { baseEnv } from '@wap/service';
import type { z } from 'zod';
import { DEFAULT_BATCHING } from './store/batcher.js';

export const env = baseEnv(50051).extend({
  MONEY_BATCH_GATHER: duration({ max: '50ms' })
    .prefault(`${DEFAULT_BATCHING.gatherMs}ms`)
    .describe(
      'How long a busy ledger holds the first Authorize, Settle or Charge of a batch for others to join its transaction (one commit for all); after a quiet spell (nothing for two windows), or while calls come one at a time, a call leaves at once. 0: a batch leaves as soon as the one before it is answered.',
    ),
  HOLD_SWEEP_INTERVAL: duration()
    .prefault('5s')
    .describe(
      'How often expired holds are marked and lapsed slot leases deleted; reads treat both as gone in between, so it only bounds how long the rows linger.',
    ),
});

export type LedgerConfig = z.infer<typeof env>;
