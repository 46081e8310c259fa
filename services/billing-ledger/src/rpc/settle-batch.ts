import { ApiError, isApiError } from '@wap/errors';
import type { ledger } from '@wap/proto';
import { toCallError } from '@wap/rpc';
import type { LedgerDeps } from './deps.js';
import { settle } from './settle.js';

/** Settles per call; bounded so one call's answer and its batch in Postgres stay small. */
export const MAX_BATCH_SETTLES = 256;

/**
 * Many settles in one call: each runs exactly as Settle alone (its own key, its
 * own refusal; an unexpected failure fails the whole call), concurrently, so the store's group commit sends them to Postgres
 * together. Outcomes come back in request order.
 */
export const settleBatch = (deps: LedgerDeps) => {
  const one = settle(deps);
  return async (req: ledger.SettleBatchRequest) => {
    if (req.settles.length > MAX_BATCH_SETTLES) {
      throw new ApiError('bad_request', { issues: [{ path: 'settles', message: `at most ${MAX_BATCH_SETTLES}` }] });
    }
    const outcomes = await Promise.allSettled(req.settles.map((s) => one(s)));
    // A refusal belongs to its settle; anything unexpected fails the call, so the server logs it
    // and the caller retries every settle (each key charges once, whichever had gone through).
    const unexpected = outcomes.find((o) => o.status === 'rejected' && !isApiError(o.reason));
    if (unexpected?.status === 'rejected') throw unexpected.reason;
    return {
      outcomes: outcomes.map((o) =>
        o.status === 'fulfilled'
          ? { outcome: { case: 'settled' as const, value: o.value } }
          : { outcome: { case: 'error' as const, value: toCallError(o.reason) } },
      ),
    };
  };
};
