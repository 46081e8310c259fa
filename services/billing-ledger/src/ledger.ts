// Builds the ledger from a database and its options: the one place the stores,
// handlers, hold sweep and change announcements are wired, shared by the
// service and the tests.

import { createLogger, type Logger } from '@wap/log';
import type { Clock } from './domain/period.js';
import { holdSweeper } from './jobs/sweeper.js';
import type { LedgerDeps } from './rpc/deps.js';
import { ledgerService } from './rpc/index.js';
import type { BatcherSettings } from './store/batcher.js';
import { BalanceChanges } from './store/changes.js';
import type { LedgerDatabase } from './store/database.js';
import { MoneyStore } from './store/money.js';
import { ReadStore } from './store/reads.js';
import { SlotStore } from './store/slots.js';

export const systemClock: Clock = () => new Date();

export interface LedgerOptions {
  clock?: Clock;
  batching?: BatcherSettings;
  /** Where the workspaces whose credits changed are announced, once committed (decision 0008); none in most tests. */
  announce?: (workspaceIds: string[]) => void;
  /** The background hold sweep, every `sweepIntervalMs`; not run without it (tests call sweepHolds themselves). */
  sweepIntervalMs?: number;
  log?: Logger;
}

/**
 * The ledger: its stores, handlers and background work, wired once for the
 * service and its tests. `start` and `stop` run the hold sweep.
 */
export function openLedger(db: LedgerDatabase, options: LedgerOptions = {}) {
  const log = options.log ?? createLogger({ service: 'billing-ledger', level: 'silent' });
  const changes = options.announce ? new BalanceChanges(db.pool, options.announce, log) : undefined;
  const clock = options.clock ?? systemClock;
  const deps: LedgerDeps = {
    money: new MoneyStore(db.pool, options.batching, changes),
    reads: new ReadStore(db.pool),
    slots: new SlotStore(db.pool),
    clock,
  };
  const sweeper =
    options.sweepIntervalMs !== undefined ? holdSweeper(deps.money, clock, log, options.sweepIntervalMs) : undefined;
  return {
    deps,
    impl: ledgerService(deps),
    /** The announcements, when made: `announced()` resolves once those told so far are out. */
    changes,
    start: () => sweeper?.start(),
    stop: async () => {
      await sweeper?.stop();
      await changes?.announced();
    },
  };
}
