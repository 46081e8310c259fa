// Builds the monitor service from its config, database and NATS link: the one
// place its stores, handlers and jobs are wired, shared by service.ts and the
// tests. It has none yet; each arrives here with the first RPC or job that
// needs it (docs/service-shape.md).
import type { NatsLink } from '@wap/events';
import type { Logger } from '@wap/log';
import type { MonitorConfig } from './config.js';
import type { PrismaClient } from './generated/prisma/client.js';

export type MonitorDatabase = PrismaClient;

/** What the handlers and jobs are given; the stores and clients they need are built from these here. */
export interface MonitorDeps {
  config: MonitorConfig;
  db: MonitorDatabase;
  nats: NatsLink;
  log: Logger;
}

export function openMonitor(config: MonitorConfig, db: MonitorDatabase, nats: NatsLink, log: Logger) {
  const deps: MonitorDeps = { config, db, nats, log };
  return {
    deps,
    /** Starts what runs besides the RPCs: jobs and consumers. */
    start: async () => {},
    /** Stops taking work and waits for what is in flight. */
    stop: async () => {},
  };
}
