// Builds the ledger from a database and a clock: the one place the stores and
// handlers are wired, shared by the service and the tests.

import type { Clock, LedgerDeps } from './rpc/deps.js';
import { ledgerService } from './rpc/index.js';
import type { BatcherSettings } from './store/batcher.js';
import type { ChangeSink } from './store/changes.js';
import type { LedgerDatabase } from './store/database.js';
import { MoneyStore } from './store/money.js';
import { ReadStore } from './store/reads.js';
import { SlotStore } from './store/slots.js';

export const systemClock: Clock = () => new Date();

export function openLedger(
  db: LedgerDatabase,
  clock: Clock = systemClock,
  batching?: BatcherSettings,
  changes?: ChangeSink,
) {
  const deps: LedgerDeps = {
    money: new MoneyStore(db.pool, batching, changes),
    reads: new ReadStore(db.pool),
    slots: new SlotStore(db.pool),
    clock,
  };
  return { deps, impl: ledgerService(deps) };
}
