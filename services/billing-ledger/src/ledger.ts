// Builds the ledger from its settings, database, NATS link and logger: the one
// place the stores, handlers, hold sweep and change announcements are wired,
// shared by the service and the tests.

import { creditsChangedSubject, type NatsLink } from '@wap/events';
import type { Logger } from '@wap/log';
import type { LedgerConfig } from './config.js';
import type { Clock } from './domain/period.js';
import { holdSweeper } from './jobs/sweeper.js';
import type { LedgerDeps } from './rpc/deps.js';
import { ledgerService } from './rpc/index.js';
import { type BatcherSettings, DEFAULT_BATCHING } from './store/batcher.js';
import { BalanceChanges } from './store/changes.js';
import type { LedgerDatabase } from './store/database.js';
import { MoneyStore } from './store/money.js';
import { ReadStore } from './store/reads.js';
import { SlotStore } from './store/slots.js';

export const systemClock: Clock = () => new Date();

/** What a test sets apart from the settings (the service sets none). */
export interface LedgerOptions {
  clock?: Clock;
  /** In place of the settings' (MONEY_BATCH_GATHER): a test's own batching. */
  batching?: BatcherSettings;
  /** In place of the announcement on NATS (decision 0008): a test's own listener. */
  announce?: (workspaceIds: string[]) => void;
  /** No background hold sweep (HOLD_SWEEP_INTERVAL): tests call sweepHolds themselves. */
  noSweep?: boolean;
}

/**
 * The ledger: its stores, handlers and background work, wired once for the
 * service and its tests. Workspaces whose credits changed are announced on
 * `nats` once committed (none without it); `start` and `stop` run the hold sweep.
 */
export function openLedger(
  config: LedgerConfig,
  db: LedgerDatabase,
  nats: NatsLink | undefined,
  log: Logger,
  options: LedgerOptions = {},
) {
  const subject = creditsChangedSubject(config.NATS_NAMESPACE);
  const announce =
    options.announce ?? (nats ? (ids: string[]) => nats.nc.publish(subject, JSON.stringify(ids)) : undefined);
  const changes = announce ? new BalanceChanges(db.pool, announce, log) : undefined;
  const clock = options.clock ?? systemClock;
  const deps: LedgerDeps = {
    money: new MoneyStore(
      db.pool,
      options.batching ?? { ...DEFAULT_BATCHING, gatherMs: config.MONEY_BATCH_GATHER },
      changes,
    ),
    reads: new ReadStore(db.pool),
    slots: new SlotStore(db.pool),
    clock,
  };
  const sweeper = options.noSweep ? undefined : holdSweeper(deps.money, clock, log, config.HOLD_SWEEP_INTERVAL);
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
