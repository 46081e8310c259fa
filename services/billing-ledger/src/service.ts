// The billing-ledger service: credits, holds, usage and concurrency slots.
import { creditsChangedSubject } from '@wap/events';
import { ledger } from '@wap/proto';
import { addService } from '@wap/rpc';
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { openLedger } from './ledger.js';
import { DEFAULT_BATCHING } from './store/batcher.js';
import { LedgerDatabase } from './store/database.js';

export const definition: ServiceDefinition<typeof env, LedgerDatabase> = {
  name: 'billing-ledger',
  env,
  openDatabase: (url) => new LedgerDatabase(url),
  start: async ({ config, db, log, server, nats }) => {
    const subject = creditsChangedSubject(config.NATS_NAMESPACE);
    const opened = openLedger(db, {
      announce: (ids) => nats.nc.publish(subject, JSON.stringify(ids)),
      sweepIntervalMs: config.HOLD_SWEEP_INTERVAL,
      batching: { ...DEFAULT_BATCHING, gatherMs: config.MONEY_BATCH_GATHER },
      log,
    });
    addService(server, ledger.LedgerService, opened.impl, log);
    opened.start();
    return { stop: opened.stop };
  },
};
