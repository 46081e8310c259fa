// The billing-ledger service: credits, holds, usage and concurrency slots.
import { ledger } from '@wap/proto';
import { addService } from '@wap/rpc';
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { openLedger } from './ledger.js';
import { LedgerDatabase } from './store/database.js';

export const definition: ServiceDefinition<typeof env, LedgerDatabase> = {
  name: 'billing-ledger',
  env,
  openDatabase: (url) => new LedgerDatabase(url),
  start: async ({ config, db, log, server, nats }) => {
    const opened = openLedger(config, db, nats, log);
    addService(server, ledger.LedgerService, opened.impl, log);
    opened.start();
    return { stop: opened.stop };
  },
};
