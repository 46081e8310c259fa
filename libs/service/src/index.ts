import * as grpc from '@grpc/grpc-js';
import { loadConfig } from '@wap/config';
import { type ConsumerSpec, connectNats, ensureStreams, type NatsLink, type StreamSpec } from '@wap/events';
import { createLogger, type Logger } from '@wap/log';
import { health } from '@wap/proto';
import { addService, createServer, HealthService, type ReadinessProbe } from '@wap/rpc';
import { stopTelemetry } from '@wap/telemetry';
import type { z } from 'zod';
import type { BaseEnv } from './env.js';
import { type MetricsServer, processMetrics, Registry, serveMetrics } from './metrics.js';

export { Batcher, type BatchSettings, type SendBatch } from './batcher.js';
export { type BaseEnv, baseEnv, sharedEnv } from './env.js';
export { type JobSettings, PeriodicJob } from './job.js';
export { Gauge, type MetricsServer, processMetrics, Registry, serveMetrics } from './metrics.js';

/** The database handle a service gets: its own generated Prisma client. */
export interface ServiceDatabase {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $disconnect(): Promise<void>;
}

export interface ServiceContext<Config, Db> {
  config: Config;
  log: Logger;
  db: Db;
  nats: NatsLink;
  /** The gRPC server; register the service's own RPCs on it. */
  server: grpc.Server;
  health: HealthService;
  /** Where the service's figures go; served at GET /metrics when METRICS_PORT is set. */
  metrics: Registry;
}

/** What `start` hands back: how to stop taking work and drain what is in flight. */
export interface Running {
  stop?(): Promise<void>;
  /** Extra readiness conditions beyond the database and NATS. */
  probes?: ReadinessProbe[];
}

export interface ServiceDefinition<Env extends z.ZodObject<z.ZodRawShape>, Db extends ServiceDatabase> {
  name: string;
  env: Env;
  openDatabase(url: string): Db;
  /** The JetStream streams and consumers the service needs, declared before `start`; names may depend on config. */
  streams?: StreamSpec[] | ((config: z.infer<Env>) => StreamSpec[]);
  consumers?: ConsumerSpec[] | ((config: z.infer<Env>) => ConsumerSpec[]);
  start(ctx: ServiceContext<z.infer<Env>, Db>): Promise<Running>;
}

const retryForever = async <T>(what: string, log: Logger, fn: () => Promise<T>): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      log.warn({ err, attempt }, `${what} failed; retrying`);
      await new Promise((r) => setTimeout(r, Math.min(500 * attempt, 5_000)));
    }
  }
};

/**
 * The composition root every service shares: validate config, serve gRPC
 * health at once (NOT_SERVING until ready), connect NATS and the database,
 * declare streams, start the service, and on SIGTERM stop taking work, drain
 * and exit 0 within SHUTDOWN_TIMEOUT.
 */
export async function runService<Env extends z.ZodObject<z.ZodRawShape>, Db extends ServiceDatabase>(
  definition: ServiceDefinition<Env, Db>,
): Promise<void> {
  let config: z.infer<Env> & BaseEnv;
  try {
    config = loadConfig(definition.env) as z.infer<Env> & BaseEnv;
  } catch (err) {
    process.stderr.write(`${definition.name}: ${(err as Error).message}\n`);
    process.exit(78); // EX_CONFIG
  }
  const log = createLogger({ service: definition.name, level: config.LOG_LEVEL });
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));

  const db = definition.openDatabase(config.DATABASE_URL);
  let nats: NatsLink | undefined;
  let running: Running | undefined;
  const probes: ReadinessProbe[] = [
    {
      name: 'database',
      check: () =>
        Promise.race([
          db.$queryRawUnsafe('SELECT 1').then(() => true),
          new Promise<boolean>((r) => setTimeout(() => r(false), 1_000).unref()),
        ]),
    },
    { name: 'nats', check: async () => nats?.isConnected() ?? false },
    { name: 'started', check: async () => running !== undefined },
    {
      name: 'service',
      check: async () => (await Promise.all((running?.probes ?? []).map((p) => p.check()))).every(Boolean),
    },
  ];
  const healthService = new HealthService(definition.name, probes);
  const metrics = config.METRICS_PORT === undefined ? new Registry() : processMetrics();
  let metricsServer: MetricsServer | undefined;
  // Every RPC but health refuses a call without the fleet's SERVICE_TOKEN (docs/decisions/0035-service-credentials.md).
  const server = createServer({
    token: config.SERVICE_TOKEN,
    log,
    options: { 'grpc.max_receive_message_length': 16 * 1024 * 1024 },
  });
  addService(server, health.Health, healthService.impl, log);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const deadline = setTimeout(() => {
      log.error({ timeoutMs: config.SHUTDOWN_TIMEOUT }, 'shutdown deadline passed; exiting');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT);
    deadline.unref();
    log.info({ signal }, 'stopping: draining in-flight work');
    healthService.shutdown();
    await running?.stop?.().catch((err) => log.error({ err }, 'service stop failed'));
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    await nats?.drain();
    await db.$disconnect().catch(() => undefined);
    await metricsServer?.close();
    log.info('stopped');
    await stopTelemetry();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  const address = `${config.GRPC_HOST}:${config.GRPC_PORT}`;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  log.info({ grpc: `${config.GRPC_HOST}:${port}` }, 'grpc listening');
  if (config.METRICS_PORT !== undefined) {
    metricsServer = await serveMetrics(metrics, config.GRPC_HOST, config.METRICS_PORT);
    log.info({ metrics: `${config.GRPC_HOST}:${metricsServer.port}` }, 'metrics served at /metrics');
  }

  nats = await retryForever('nats connect', log, () =>
    connectNats({ url: config.NATS_URL, name: definition.name, log }),
  );
  const natsLink = nats;
  const declared = <T>(specs: T[] | ((c: z.infer<Env>) => T[]) | undefined): T[] =>
    typeof specs === 'function' ? specs(config) : (specs ?? []);
  const streams = declared(definition.streams);
  const consumers = declared(definition.consumers);
  await retryForever('declare streams', log, () =>
    ensureStreams(natsLink.nc, streams, consumers, config.NATS_REPLICAS),
  );
  if (stopping) return;
  running = await definition.start({ config, log, db, nats, server, health: healthService, metrics });
  log.info('ready to serve');
}
