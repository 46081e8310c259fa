import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, type Infra } from '@wap/fleet';
import { until } from './wait.js';

const pgBin = () =>
  execFileSync('bash', ['-c', 'ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1'], { encoding: 'utf8' }).trim();

const asPostgres = (args: string[]): [string, string[]] =>
  process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', ...args]] : [args[0] as string, args.slice(1)];

/**
 * A private Postgres and NATS for tests that stop and restart them, so the
 * shared servers other tests use are never touched.
 */
export class PrivateInfra {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'wap-infra-'));
  private pgPort = 0;
  private natsPort = 0;
  private nats: ChildProcess | undefined;
  private readonly password = randomBytes(12).toString('hex');

  get infra(): Infra {
    return {
      adminUrl: `postgresql://wap:${this.password}@127.0.0.1:${this.pgPort}/postgres`,
      natsUrl: `nats://127.0.0.1:${this.natsPort}`,
    };
  }

  async init(): Promise<void> {
    this.pgPort = await freePort();
    this.natsPort = await freePort();
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

  async startNats(): Promise<void> {
    this.nats = spawn(
      'nats-server',
      ['-a', '127.0.0.1', '-p', String(this.natsPort), '-js', '-sd', path.join(this.dir, 'nats')],
      {
        stdio: 'ignore',
      },
    );
    const port = this.natsPort;
    await until('nats listening', async () => {
      const { connect } = await import('node:net');
      return new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.destroy();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      });
    });
  }

  async stopNats(): Promise<void> {
    const proc = this.nats;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
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
