// A service run as its own process, as libs/fleet starts it: `node dist/main.js`
// with its environment, logging to a file (reading a loaded service's log
// through a pipe would cost the test, or the bench, CPU it is measuring).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localInfra } from '@wap/db';
import { ROOT } from '@wap/fleet';
import { health } from '@wap/proto';
import { createClient } from '@wap/rpc';
import { uniqueNamespace } from './namespace.js';
import { until } from './wait.js';

/** The SERVICE_TOKEN of the services this test process runs, spawned or in-process: its clients send it. */
export const TEST_SERVICE_TOKEN = `test-${randomBytes(24).toString('hex')}`;

export interface ServiceProcess {
  proc: ChildProcess;
  exited: Promise<number | null>;
  /** Where the process logs, one JSON line per event. */
  logFile: string;
  /** Its gRPC address on loopback. */
  address: string;
  /** The SERVICE_TOKEN it takes: a client of it sends this (createClient's `token`). */
  token: string;
}

/**
 * Starts services/<service>/dist/main.js on `port` against `databaseUrl` and the local NATS, in a NATS namespace
 * of its own unless `env` names one: two services declaring the same stream from two test files at once can
 * leave JetStream unable to create a consumer (seen in CI: a SESSIONS consumer retried for 30 s).
 */
export function spawnService(
  service: string,
  databaseUrl: string,
  port: number,
  env: Record<string, string> = {},
): ServiceProcess {
  const logFile = path.join(mkdtempSync(path.join(tmpdir(), `${service}-`)), `${service}.log`);
  const fd = openSync(logFile, 'a');
  const proc = spawn(
    process.execPath,
    ['--enable-source-maps', path.join(ROOT, 'services', service, 'dist', 'main.js')],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        OTEL_SERVICE_NAME: service,
        DATABASE_URL: databaseUrl,
        NATS_URL: localInfra().natsUrl,
        GRPC_PORT: String(port),
        LOG_LEVEL: 'warn',
        NATS_NAMESPACE: uniqueNamespace(service.replace(/-/g, '_')),
        SERVICE_TOKEN: TEST_SERVICE_TOKEN,
        ...env,
      },
      stdio: ['ignore', fd, fd],
    },
  );
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, exited, logFile, address: `127.0.0.1:${port}`, token: env.SERVICE_TOKEN ?? TEST_SERVICE_TOKEN };
}

/** Waits until the gRPC health service at `address` reports SERVING. */
export async function waitServing(address: string, timeoutMs = 30_000): Promise<void> {
  const client = createClient(health.Health, address, { defaultTimeoutMs: 1_000 });
  try {
    await until(
      `${address} serving`,
      async () => (await client.check({ service: '' })).status === health.HealthCheckResponse_ServingStatus.SERVING,
      timeoutMs,
    );
  } finally {
    client.close();
  }
}

/**
 * The rest of a service's life as the fleet runs it: gRPC health SERVING,
 * then on SIGTERM a drain and exit 0. Proves a service skeleton runs before
 * it has any RPC of its own; the process is killed if it has not exited.
 */
export async function servesAndStops(running: ServiceProcess): Promise<void> {
  const log = () => readFileSync(running.logFile, 'utf8');
  try {
    const died = running.exited.then((code) => {
      throw new Error(`exited ${code} before serving; log: ${log()}`);
    });
    await Promise.race([waitServing(running.address), died]);
    running.proc.kill('SIGTERM');
    const code = await running.exited;
    if (code !== 0) throw new Error(`exited ${code} on SIGTERM; log: ${log()}`);
  } finally {
    if (running.proc.exitCode === null) running.proc.kill('SIGKILL');
  }
}
