// Shared by the tests and the bench (not a test itself): a fresh migrated
// database per test file, the ledger served in-process on a real gRPC server
// with a clock the test moves, or run as its own process like the fleet does.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { freshServiceDatabase, infra } from '@wap/testkit';

export { freePort, infra } from '@wap/testkit';

import { createLogger } from '@wap/log';
import { health, ledger } from '@wap/proto';
import { addService, createClient } from '@wap/rpc';
import { openLedger } from './ledger.js';
import type { BatcherSettings } from './store/batcher.js';
import type { ChangeSink } from './store/changes.js';
import { LedgerDatabase } from './store/database.js';

export const SERVICE_DIR = path.resolve(__dirname, '..');
const ROOT = path.resolve(SERVICE_DIR, '..', '..');

export type LedgerClient = ReturnType<typeof createClient<(typeof ledger.LedgerService)['method']>>;

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new database with every migration applied, as the deploy Job would leave it. */
export const freshDatabase = (): Promise<TestDatabase> => freshServiceDatabase(SERVICE_DIR);

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
  close(): Promise<void>;
}

/** The ledger's handlers on a real gRPC server on loopback, against a real database. */
export async function serveLedger(
  url: string,
  clock: () => Date,
  batching?: BatcherSettings,
  changes?: (db: LedgerDatabase) => ChangeSink,
): Promise<InProcessLedger> {
  const db = new LedgerDatabase(url);
  const { deps, impl } = openLedger(db, clock, batching, changes?.(db));
  const server = new grpc.Server();
  addService(server, ledger.LedgerService, impl, createLogger({ service: 'billing-ledger', level: 'warn' }));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  const address = `127.0.0.1:${port}`;
  const client = createClient(ledger.LedgerService, address, { defaultTimeoutMs: 15_000 });
  return {
    client,
    db,
    address,
    deps,
    close: async () => {
      client.close();
      server.forceShutdown();
      await db.$disconnect();
    },
  };
}

export interface LedgerProcess {
  proc: ChildProcess;
  exited: Promise<number | null>;
  /** Where the process logs, one JSON line per event. */
  logFile: string;
}

/**
 * `node dist/main.js` with its environment, as libs/fleet starts a service.
 * Output goes straight to a file: a loaded ledger logs every call, and reading
 * that through a pipe would cost the test (or the bench) CPU it is measuring.
 */
export function spawnLedger(databaseUrl: string, port: number, env: Record<string, string> = {}): LedgerProcess {
  const logFile = path.join(mkdtempSync(path.join(tmpdir(), 'ledger-')), 'billing-ledger.log');
  const fd = openSync(logFile, 'a');
  const proc = spawn(process.execPath, ['--enable-source-maps', path.join(SERVICE_DIR, 'dist', 'main.js')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      OTEL_SERVICE_NAME: 'billing-ledger',
      DATABASE_URL: databaseUrl,
      NATS_URL: infra().natsUrl,
      GRPC_PORT: String(port),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, exited, logFile };
}

/** Polls the gRPC health service until the ledger reports SERVING. */
export async function waitServing(address: string, timeoutMs = 30_000): Promise<void> {
  const client = createClient(health.Health, address, { defaultTimeoutMs: 1_000 });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const status = await client.check({ service: '' }).then(
        (r) => r.status,
        () => undefined,
      );
      if (status === health.HealthCheckResponse_ServingStatus.SERVING) return;
      if (Date.now() > deadline) throw new Error(`ledger at ${address} not serving after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    client.close();
  }
}
