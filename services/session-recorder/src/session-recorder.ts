// Builds the session-recorder service from its config, database and NATS link: the one
// place its stores, handlers and jobs are wired, shared by service.ts and the
// tests. It has none yet; each arrives here with the first RPC or job that
// needs it (docs/service-shape.md).
import type { NatsLink } from '@wap/events';
import type { Logger } from '@wap/log';
import type { SessionRecorderConfig } from './config.js';
import type { PrismaClient } from './generated/prisma/client.js';

export type SessionRecorderDatabase = PrismaClient;

/** What the handlers and jobs are given; the stores and clients they need are built from these here. */
export interface SessionRecorderDeps {
  config: SessionRecorderConfig;
  db: SessionRecorderDatabase;
  nats: NatsLink;
  log: Logger;
}

export function openSessionRecorder(
  config: SessionRecorderConfig,
  db: SessionRecorderDatabase,
  nats: NatsLink,
  log: Logger,
) {
  const deps: SessionRecorderDeps = { config, db, nats, log };
  return {
    deps,
    /** Starts what runs besides the RPCs: jobs and consumers. */
    start: async () => {},
    /** Stops taking work and waits for what is in flight. */
    stop: async () => {},
  };
}
