// Builds the session-recorder service from its config, database and NATS link: the one
// place its stores, handlers and consumers are wired, shared by service.ts and the
// tests (docs/sessions.md).
import type { NatsLink } from '@wap/events';
import type { Logger } from '@wap/log';
import type { SessionRecorderConfig } from './config.js';
import type { PrismaClient } from './generated/prisma/client.js';
import { lifecycleConsumer } from './jobs/lifecycle.js';
import { sessionService } from './rpc/index.js';
import { SessionRows } from './store/sessions.js';

export type SessionRecorderDatabase = PrismaClient;

export function openSessionRecorder(
  config: SessionRecorderConfig,
  db: SessionRecorderDatabase,
  nats: NatsLink,
  log: Logger,
) {
  const rows = new SessionRows(db);
  const lifecycle = lifecycleConsumer(nats, config.NATS_NAMESPACE, rows, log);
  return {
    rows,
    impl: sessionService(rows),
    /** Starts what runs besides the RPCs: the consumers. */
    start: async () => {
      await lifecycle.start();
    },
    /** Stops taking work and waits for what is in flight. */
    stop: async () => {
      await lifecycle.stop();
    },
  };
}
