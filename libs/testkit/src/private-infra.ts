import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePorts, type Infra } from '@wap/fleet';
import { until } from './wait.js';

const pgBin = () =>
  execFileSync('bash', ['-c', 'ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1'], { encoding: 'utf8' }).trim();

const asPostgres = (args: string[]): [string, string[]] =>
  process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', ...args]] : [args[0] as string, args.slice(1)];

/** One nats-server of the private NATS: its client, route and monitoring ports. */
interface NatsNode {
  port: number;
  routePort: number;
  monitorPort: number;
  proc?: ChildProcess;
}

/**
 * A private Postgres and NATS for tests that stop and restart them, so the
 * shared servers other tests use are never touched. Its NATS asks for a user and
 * password, which `infra.natsUrl` carries. `natsServers` above 1 makes
 * the NATS a cluster of that many servers on loopback, joined by routes, with
 * JetStream on each (a stream at NATS_REPLICAS 3 lives on three of them).
 */
export class PrivateInfra {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'wap-infra-'));
  private pgPort = 0;
  private nodes: NatsNode[] = [];
  private readonly password = randomBytes(12).toString('hex');
  /** NATS's user `wap` has this password, as scripts/infra.sh gives one (docs/decisions/0035-service-credentials.md). */
  readonly natsPassword = randomBytes(12).toString('hex');

  constructor(private readonly options: { natsServers?: number } = {}) {}

  /** NATS_URL lists every server of the cluster, as a deployment's would. */
  get infra(): Infra {
    return {
      adminUrl: `postgresql://wap:${this.password}@127.0.0.1:${this.pgPort}/postgres`,
      natsUrl: this.nodes.map((_, i) => this.natsServerUrl(i)).join(','),
    };
  }

  /** The client URL of NATS server `i`, with the user and password it asks for. */
  natsServerUrl(i: number): string {
    return `nats://wap:${this.natsPassword}@127.0.0.1:${this.node(i).port}`;
  }

  async init(): Promise<void> {
    const count = this.options.natsServers ?? 1;
    const ports = await freePorts(1 + count * 3);
    this.pgPort = ports[0] as number;
    this.nodes = Array.from({ length: count }, (_, i) => ({
      port: ports[1 + i * 3] as number,
      routePort: ports[2 + i * 3] as number,
      monitorPort: ports[3 + i * 3] as number,
    }));
    const pgData = path.join(this.dir, 'pg');
    const pwFile = path.join(this.dir, 'pw');
    writeFileSync(pwFile, this.password);
    if (process.getuid?.() === 0) {
      execFileSync('chown', ['-R', 'postgres', this.dir]);
    }
    const [cmd, args] = asPostgres([
      `${pgBin()}/initdb`,
      '-D',
      pgData,
      '-U',
      'wap',
      `--pwfile=${pwFile}`,
      '--auth=scram-sha-256',
    ]);
    execFileSync(cmd, args, { stdio: 'ignore' });
    await this.startPostgres();
    // After the chown above: Postgres's user has no business reading it.
    writeFileSync(
      path.join(this.dir, 'nats.conf'),
      `authorization {\n  user: wap\n  password: "${this.natsPassword}"\n}\n`,
      { mode: 0o600 },
    );
    await this.startNats();
  }

  async startPostgres(): Promise<void> {
    const log = path.join(this.dir, 'pg.log');
    const [cmd, args] = asPostgres([
      `${pgBin()}/pg_ctl`,
      '-D',
      path.join(this.dir, 'pg'),
      '-l',
      log,
      '-w',
      '-o',
      `-h 127.0.0.1 -p ${this.pgPort} -k ${this.dir}`,
      'start',
    ]);
    execFileSync(cmd, args, { stdio: 'ignore' });
  }

  /** Immediate shutdown: connections drop as they would when the server dies. */
  stopPostgres(): void {
    const [cmd, args] = asPostgres([
      `${pgBin()}/pg_ctl`,
      '-D',
      path.join(this.dir, 'pg'),
      '-m',
      'immediate',
      '-w',
      'stop',
    ]);
    execFileSync(cmd, args, { stdio: 'ignore' });
  }

  /** Starts every NATS server that is not running and waits until JetStream answers on each. */
  async startNats(): Promise<void> {
    for (let i = 0; i < this.nodes.length; i++) this.spawnNats(i);
    for (let i = 0; i < this.nodes.length; i++) await this.natsHealthy(i);
  }

  /** Kills every NATS server, as a whole NATS outage would. */
  async stopNats(): Promise<void> {
    for (let i = 0; i < this.nodes.length; i++) await this.stopNatsServer(i);
  }

  /** Starts server `i` of the cluster again and waits until it has caught up (JetStream healthy). */
  async startNatsServer(i: number): Promise<void> {
    this.spawnNats(i);
    await this.natsHealthy(i);
  }

  /** SIGKILLs server `i` of the cluster: its clients must move to another. */
  async stopNatsServer(i: number): Promise<void> {
    const proc = this.node(i).proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
  }

  /** The monitoring endpoint of server `i` (/jsz, /connz, /routez). */
  async natsMonitor<T>(i: number, endpoint: string): Promise<T> {
    const r = await fetch(`http://127.0.0.1:${this.node(i).monitorPort}/${endpoint}`);
    return (await r.json()) as T;
  }

  private node(i: number): NatsNode {
    const node = this.nodes[i];
    if (!node) throw new Error(`no NATS server ${i}`);
    return node;
  }

  private spawnNats(i: number): void {
    const node = this.node(i);
    if (node.proc && node.proc.exitCode === null && node.proc.signalCode === null) return;
    const args = ['-c', path.join(this.dir, 'nats.conf'), '-a', '127.0.0.1', '-p', String(node.port)];
    args.push('-m', String(node.monitorPort));
    args.push('-js', '-sd', path.join(this.dir, `nats-${i}`), '-n', `wap-${i}`);
    if (this.nodes.length > 1) {
      const routes = this.nodes.filter((n) => n !== node).map((n) => `nats://127.0.0.1:${n.routePort}`);
      args.push('--cluster_name', 'wap', '--cluster', `nats://127.0.0.1:${node.routePort}`);
      args.push('--routes', routes.join(','));
    }
    node.proc = spawn('nats-server', args, { stdio: 'ignore' });
  }

  /** JetStream on server `i` answers healthy: in a cluster, it knows the meta leader and is current. */
  private async natsHealthy(i: number): Promise<void> {
    const { monitorPort } = this.node(i);
    await until(
      `NATS server ${i} healthy`,
      async () => {
        const r = await fetch(`http://127.0.0.1:${monitorPort}/healthz`).catch(() => undefined);
        return r?.status === 200;
      },
      60_000,
    );
  }

  async destroy(): Promise<void> {
    await this.stopNats();
    try {
      this.stopPostgres();
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
