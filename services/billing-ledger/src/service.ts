// The billing-ledger service: credits, holds, usage and concurrency slots.
import { creditsChangedSubject } from '@wap/events';
import { ledger } from '@wap/proto';
import { addService } from '@wap/rpc';
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { holdSweeper } from './jobs/sweeper.js';
import { openLedger, systemClock } from './ledger.js';
import { BalanceChanges } from './store/changes.js';
import { LedgerDatabase } from './store/database.js';

export const definition: ServiceDefinition<typeof env, LedgerDatabase> = {
  name: 'billing-ledger',
  env,
  openDatabase: (url) => new LedgerDatabase(url),
  start: async ({ config, db, log, server, nats }) => {
    const subject = creditsChangedSubject(config.NATS_NAMESPACE);
    const changes = new BalanceChanges(db.pool, (ids) => nats.nc.publish(subject, JSON.stringify(ids)), log);
    const { deps, impl } = openLedger(db, systemClock, undefined, changes);
    addService(server, ledger.LedgerService, impl, log);
    const sweeper = holdSweeper(deps.money, deps.clock, log, config.HOLD_SWEEP_INTERVAL);
    sweeper.start();
    return { stop: () => sweeper.stop() };
  },
};
