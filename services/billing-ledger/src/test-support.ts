// Shared by the tests and the bench (not a test itself): a fresh migrated
// database per test file, the ledger served in-process on a real gRPC server
// with a clock the test moves, or run as its own process like the fleet does.
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import {
  type FreshDatabase,
  freshServiceDatabase,
  type ServiceProcess,
  spawnService,
  TEST_SERVICE_TOKEN,
} from '@wap/testkit';

export { freePort, infra, TEST_SERVICE_TOKEN, waitServing } from '@wap/testkit';

import assert from 'node:assert/strict';
import { type ApiError, isApiError } from '@wap/errors';
import { createLogger } from '@wap/log';
import { ledger } from '@wap/proto';
import { addService, createClient, createServer } from '@wap/rpc';
import { env } from './config.js';
import { openLedger } from './ledger.js';
import type { BatcherSettings } from './store/batcher.js';
import { LedgerDatabase } from './store/database.js';

export const SERVICE_DIR = path.resolve(__dirname, '..');

export type LedgerClient = ReturnType<typeof createClient<(typeof ledger.LedgerService)['method']>>;

export type TestDatabase = FreshDatabase;

/** A new database with every migration applied, as the deploy Job would leave it. */
export const freshDatabase = (): Promise<TestDatabase> => freshServiceDatabase(SERVICE_DIR);

/** The ApiError a call was refused with; fails the test when it succeeded or failed otherwise. */
export async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(isApiError(err), String(err));
  return err;
}

/** A clock that only moves when told to. */
export class TestClock {
  constructor(private ms = Date.UTC(2026, 10, 20, 12, 0, 0)) {}
  readonly now = () => new Date(this.ms);
  advance(seconds: number): void {
    this.ms += Math.round(seconds * 1000);
  }
}

export interface InProcessLedger {
  client: LedgerClient;
  db: LedgerDatabase;
  address: string;
  deps: ReturnType<typeof openLedger>['deps'];
  /** The announcements, when the ledger makes them. */
  changes: ReturnType<typeof openLedger>['changes'];
  close(): Promise<void>;
}

/** The ledger's handlers on a real gRPC server on loopback, against a real database. */
export async function serveLedger(
  url: string,
  clock: () => Date,
  batching?: BatcherSettings,
  announce?: (workspaceIds: string[]) => void,
  /** A fixed port, for a ledger that goes away and comes back where its clients look for it. */
  port = 0,
): Promise<InProcessLedger> {
  const db = new LedgerDatabase(url);
  // No NATS: a test that listens to the announcements hands its own `announce`.
  const config = env.parse({ DATABASE_URL: url, NATS_URL: 'nats://127.0.0.1:4222', SERVICE_TOKEN: TEST_SERVICE_TOKEN });
  const log = createLogger({ service: 'billing-ledger', level: 'warn' });
  const { deps, impl, changes } = openLedger(config, db, undefined, log, {
    clock,
    noSweep: true,
    ...(batching && { batching }),
    ...(announce && { announce }),
  });
  // As the service serves: a call without the test's service token is refused.
  const server = createServer({ token: TEST_SERVICE_TOKEN, log });
  addService(server, ledger.LedgerService, impl, log);
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (e, p) =>
      e ? reject(e) : resolve(p),
    ),
  );
  const address = `127.0.0.1:${bound}`;
  const client = createClient(ledger.LedgerService, address, { defaultTimeoutMs: 15_000, token: TEST_SERVICE_TOKEN });
  return {
    client,
    db,
    address,
    deps,
    changes,
    close: async () => {
      client.close();
      server.forceShutdown();
      await db.$disconnect();
    },
  };
}

export type LedgerProcess = ServiceProcess;

/** The ledger as its own process, as the fleet runs it. */
export const spawnLedger = (databaseUrl: string, port: number, env: Record<string, string> = {}): LedgerProcess =>
  spawnService('billing-ledger', databaseUrl, port, env);
