import type { ledger } from '@wap/proto';
import { accepted } from '../views/refusal.js';
import { clocked, type LedgerDeps } from './deps.js';
import { requireId } from './parse.js';

/** Releases what is left of a hold; on a resolved hold it changes nothing and answers the same figures. */
export const voidHold = (deps: LedgerDeps) => async (req: ledger.VoidRequest) => {
  const holdId = requireId('hold', req.holdId);
  const answer = accepted(await deps.money.void(holdId, clocked(deps.clock)), holdId);
  return { releasedMillicredits: BigInt(answer.released), settledMillicredits: BigInt(answer.settled) };
};
