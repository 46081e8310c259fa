import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { packageDir, SERVICE_TABLE, SERVICES, type ServiceName } from '@wap/config';
import type { Infra } from '@wap/db';
// Only the names: the driver and the migration engine are loaded by the steps that use them (a supervisor that
// only starts services keeps neither resident).
import { databaseUrlFor } from '@wap/db/names';

/**
 * How every service process runs, here and in the chart's pods (charts/web-access/templates/_workload.tpl):
 * - source maps, so a stack names our TypeScript;
 * - young-generation semi-spaces of 2 MB: V8 grows them to 16 MB each while a service starts and never gives
 *   the pages back, 25-55 MB of an idle process's resident memory; at 1,000 requests/s the gateway's p99 was
 *   no worse with them small (make bench: idle.bench, gateway.bench, 2026-11-27).
 */
export const SERVICE_NODE_FLAGS = ['--enable-source-maps', '--max-semi-space-size=2'];

export const ROOT = path.resolve(__dirname, '../../..');

/** A free TCP port on loopback, for a server a moment from now. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0] as number;
}

/**
 * `n` distinct free TCP ports on loopback: all are held open until every one
 * is chosen, so no two of them can be the same port (ports chosen one after
 * another may be: the kernel may hand a just-released port out again).
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.unref();
          server.on('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

export interface FleetSettings {
  infra: Infra;
  /** Databases are named `<prefix><service>`; tests use a unique prefix and drop them after. */
  dbPrefix: string;
  logDir: string;
  /** Fixed ports (make up) or free ones chosen at start (tests). */
  ports?: FleetPorts;
  /** Extra environment for every service (LOG_LEVEL, test allow-lists...). */
  env?: Record<string, string>;
  /** Copy each line a service prints to this process's stdout. */
  echo?: boolean;
  /**
   * Start a service that exits on its own again, as a Kubernetes Deployment
   * would (`make up`): after 1 s, doubling up to 30 s while it keeps exiting
   * within a minute of its start. A restarted browser host finishes the bills
   * of the sessions it had (docs/connect.md). Tests kill and start services
   * themselves, so they leave it off.
   */
  restart?: boolean;
}

/** Restart delays: the first, the longest, and how long a start must last for the delay to go back to the first. */
const RESTART_FIRST_MS = 1_000;
const RESTART_MAX_MS = 30_000;
const RESTART_STEADY_MS = 60_000;

interface Child {
  proc: ChildProcess;
  log: WriteStream;
  exited: Promise<number | null>;
}

export interface Replica {
  pid: number;
  logFile: string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The gateway's HTTP port, browser-host's CDP port, and every service's gRPC port. */
export interface FleetPorts {
  http: number;
  cdp: number;
  grpc: Record<ServiceName, number>;
}

/** Starts, stops, kills and restarts the services as separate processes. */
export class Fleet {
  private readonly children = new Map<ServiceName, Child>();
  /** Every process launched and not yet exited, replicas included: stop() ends those a test left behind. */
  private readonly running = new Set<Child>();
  /** Services being stopped on purpose: their exit is no crash. */
  private readonly stopping = new Set<ServiceName>();
  private readonly restartDelay = new Map<ServiceName, number>();
  private ports!: FleetPorts;

  constructor(readonly settings: FleetSettings) {}

  get gatewayUrl(): string {
    return `http://127.0.0.1:${this.ports.http}`;
  }

  grpcAddress(service: ServiceName): string {
    return `127.0.0.1:${this.ports.grpc[service]}`;
  }

  /** The SERVICE_TOKEN this fleet's services send and check (a .env may set its own). */
  get serviceToken(): string {
    return this.settings.env?.SERVICE_TOKEN ?? this.derivedKey('wap-service-token');
  }

  /** A secret of this fleet's own, derived from its infra (whose admin URL holds a password) and database prefix. */
  private derivedKey(label: string): string {
    return createHash('sha256')
      .update(`${label}:${this.settings.infra.adminUrl}:${this.settings.dbPrefix}`)
      .digest('base64url');
  }

  databaseUrl(service: ServiceName): string {
    return databaseUrlFor(this.settings.infra.adminUrl, this.databaseName(service));
  }

  logFile(service: ServiceName): string {
    return path.join(this.settings.logDir, `${service}.log`);
  }

  private databaseName(service: ServiceName): string {
    return `${this.settings.dbPrefix}${service.replaceAll('-', '_')}`;
  }

  /** Creates each service's database if missing and applies its migrations. */
  async migrate(): Promise<void> {
    const { applyMigrations, ensureDatabase } = await import('@wap/db');
    for (const service of SERVICES) {
      await ensureDatabase(this.settings.infra.adminUrl, this.databaseName(service));
      await applyMigrations({
        migrationsDir: path.join(ROOT, packageDir(service), 'prisma', 'migrations'),
        databaseUrl: this.databaseUrl(service),
      });
    }
  }

  async start(): Promise<void> {
    if (!this.ports) {
      const [http, cdp, ...grpc] = await freePorts(2 + SERVICES.length);
      this.ports = this.settings.ports ?? {
        http: http as number,
        cdp: cdp as number,
        grpc: Object.fromEntries(SERVICES.map((s, i) => [s, grpc[i]])) as Record<ServiceName, number>,
      };
    }
    mkdirSync(this.settings.logDir, { recursive: true });
    for (const service of SERVICES) this.startOne(service);
  }

  serviceEnv(service: ServiceName): Record<string, string> {
    const upstreams = Object.fromEntries(SERVICE_TABLE.map((s) => [s.address, this.grpcAddress(s.name)]));
    return {
      ...upstreams,
      OTEL_SERVICE_NAME: service,
      DATABASE_URL: this.databaseUrl(service),
      NATS_URL: this.settings.infra.natsUrl,
      // Streams and subjects of this fleet alone, as its databases are.
      NATS_NAMESPACE: this.settings.dbPrefix.toLowerCase(),
      GRPC_PORT: String(this.ports.grpc[service]),
      HTTP_PORT: String(this.ports.http),
      // browser-host's CDP endpoint, where /connect sends clients.
      CDP_PORT: String(this.ports.cdp),
      // Every service's gRPC calls carry it and every server checks it (docs/decisions/0035-service-credentials.md);
      // derived like the keys below.
      SERVICE_TOKEN: this.derivedKey('wap-service-token'),
      // Recording chunks are signed by browser-host and checked by session-recorder with one key (docs/sessions.md):
      // on loopback, one derived from this fleet's infra; a cluster sets a real secret.
      RECORDING_KEY: this.derivedKey('wap-recording'),
      // Profiles' stored states are sealed by browser hosts (docs/profiles.md); derived the same way, a different key.
      PROFILE_KEY: this.derivedKey('wap-profile'),
      // Monitors' target URLs and webhook secrets are sealed by the monitor service (docs/monitors.md); the same way.
      MONITOR_KEY: this.derivedKey('wap-monitor'),
      // Crawls' webhook URLs, headers and secrets are sealed by the crawl service (docs/crawl.md); the same way.
      CRAWL_KEY: this.derivedKey('wap-crawl'),
      // The OAuth sign-in pages' state is signed by the gateway (docs/oauth.md); derived the same way, a different key.
      OAUTH_KEY: this.derivedKey('wap-oauth'),
      // Files handed to agent runs are sealed by the agent service (docs/agent.md); derived the same way, a different key.
      AGENT_FILES_KEY: this.derivedKey('wap-agent-files'),
      // Stored secrets' data keys are wrapped by the agent service (docs/secrets.md); derived the same way, a different key.
      AGENT_SECRETS_KEY: this.derivedKey('wap-agent-secrets'),
      // Replay links are signed by the gateway alone; derived the same way, a different key.
      REPLAY_KEY: this.derivedKey('wap-replay'),
      ...this.settings.env,
    };
  }

  /** Starts one service (again), with `extra` environment on top of the fleet's. */
  startOne(service: ServiceName, extra: Record<string, string> = {}): void {
    const child = this.launch(service, extra, this.logFile(service));
    this.children.set(service, child);
    if (!this.settings.restart) return;
    const startedAt = Date.now();
    void child.exited.then((code) => {
      if (this.stopping.has(service) || this.children.get(service) !== child) return;
      const steady = Date.now() - startedAt >= RESTART_STEADY_MS;
      const delay = steady ? RESTART_FIRST_MS : (this.restartDelay.get(service) ?? RESTART_FIRST_MS);
      this.restartDelay.set(service, Math.min(delay * 2, RESTART_MAX_MS));
      const line = `${service} exited (${code ?? child.proc.signalCode}); starting it again in ${delay / 1000} s\n`;
      child.log.write(line);
      process.stderr.write(line);
      setTimeout(() => {
        if (!this.stopping.has(service) && this.children.get(service) === child) this.startOne(service, extra);
      }, delay).unref();
    });
  }

  /**
   * Another process of a worker service (crawl, agent...) on the same
   * database and NATS, serving gRPC on a port of its own: it shares the
   * service's queues. `stop` sends a signal (SIGKILL for a crash) and waits.
   */
  async replica(
    service: ServiceName,
    name = `${service}-replica`,
    extra: Record<string, string> = {},
  ): Promise<Replica> {
    const grpc = await freePort();
    const logFile = path.join(this.settings.logDir, `${name}.log`);
    const child = this.launch(service, { ...extra, GRPC_PORT: String(grpc) }, logFile);
    return {
      pid: child.proc.pid ?? 0,
      logFile,
      stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
        child.proc.kill(signal);
        const code = await child.exited;
        child.log.end();
        return code;
      },
    };
  }

  /** One service process with its environment (plus `extra`), its output kept in `logFile`. */
  private launch(service: ServiceName, extra: Record<string, string>, logFile: string): Child {
    const log = createWriteStream(logFile, { flags: 'a' });
    const proc = spawn(
      process.execPath,
      [
        ...SERVICE_NODE_FLAGS,
        // WAP_CPU_PROF_DIR: every service writes a V8 CPU profile there when it stops (profiling a bench).
        ...(process.env.WAP_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.WAP_CPU_PROF_DIR}`] : []),
        path.join(ROOT, packageDir(service), 'dist', 'main.js'),
      ],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          // Compiled code is kept between starts (keyed by each file's content): a service starts in
          // about two thirds of the CPU, which a fleet of seven on two cores feels.
          NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(ROOT, '.data', 'node-compile-cache'),
          ...this.serviceEnv(service),
          ...extra,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    for (const stream of [proc.stdout, proc.stderr]) {
      stream?.on('data', (chunk: Buffer) => {
        log.write(chunk);
        if (this.settings.echo) process.stdout.write(prefixLines(service, chunk));
      });
    }
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    const child = { proc, log, exited };
    this.running.add(child);
    void exited.then(() => this.running.delete(child));
    return child;
  }

  /** SIGTERM and wait: the service drains and exits 0. Returns its exit code. */
  async stopOne(service: ServiceName, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    const child = this.children.get(service);
    if (!child) return null;
    this.stopping.add(service);
    try {
      child.proc.kill(signal);
      const code = await child.exited;
      child.log.end();
      this.children.delete(service);
      return code;
    } finally {
      this.stopping.delete(service);
    }
  }

  /** The pid of a running service; undefined once it has exited. */
  pid(service: ServiceName): number | undefined {
    const proc = this.children.get(service)?.proc;
    return proc && proc.exitCode === null && proc.signalCode === null ? proc.pid : undefined;
  }

  async stop(): Promise<void> {
    // The gateway first so nothing new comes in, then the rest together.
    await this.stopOne('gateway');
    await Promise.all([...this.children.keys()].map((s) => this.stopOne(s)));
    // Replicas a test did not stop (its hook failed first): left running, they would keep this process alive.
    await Promise.all(
      [...this.running].map((child) => {
        child.proc.kill('SIGTERM');
        return child.exited.then(() => child.log.end());
      }),
    );
  }

  /** Polls a gateway's /readyz (this fleet's by default) until it answers 200. */
  async waitReady(timeoutMs = 60_000, gatewayUrl = this.gatewayUrl): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      try {
        const res = await fetch(`${gatewayUrl}/readyz`);
        last = await res.text();
        if (res.status === 200) return;
      } catch (err) {
        last = String(err);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`fleet not ready after ${timeoutMs} ms: ${last}`);
  }

  /** Another gateway replica on the same database and services; returns its URL and a stop function. */
  async extraGateway(): Promise<{ url: string; stop: () => Promise<number | null> }> {
    const http = await freePort();
    const child = this.launch(
      'gateway',
      { HTTP_PORT: String(http), GRPC_PORT: String(await freePort()) },
      path.join(this.settings.logDir, 'gateway-extra.log'),
    );
    const url = `http://127.0.0.1:${http}`;
    const stop = async () => {
      child.proc.kill('SIGTERM');
      const code = await child.exited;
      child.log.end();
      return code;
    };
    try {
      await this.waitReady(60_000, url);
    } catch (err) {
      // Never ready (a busy machine): the caller has no handle to stop it with.
      await stop();
      throw err;
    }
    return { url, stop };
  }

  /** Runs the gateway's admin command (workspaces, keys) with the gateway's environment. */
  async admin<T = Record<string, unknown>>(...args: string[]): Promise<T> {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(ROOT, 'services/gateway/dist/admin.js'), ...args],
      { env: { PATH: process.env.PATH ?? '', ...this.serviceEnv('gateway') } },
    );
    return JSON.parse(stdout) as T;
  }

  /** A fresh workspace on `plan` with one API key. */
  async workspace(plan = 'free'): Promise<{ workspaceId: string; apiKey: string; keyId: string }> {
    const name = `ws-${Math.random().toString(36).slice(2, 10)}`;
    await this.admin('workspace', 'create', name, '--plan', plan);
    return this.admin('key', 'create', name);
  }

  async dropDatabases(): Promise<void> {
    const { dropDatabase } = await import('@wap/db');
    for (const service of SERVICES) await dropDatabase(this.settings.infra.adminUrl, this.databaseName(service));
  }
}

function prefixLines(service: string, chunk: Buffer): string {
  return chunk
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => `${service.padEnd(16)} | ${line}\n`)
    .join('');
}
