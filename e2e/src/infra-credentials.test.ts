// scripts/infra.sh gives NATS a user and password (docs/decisions/0035-service-credentials.md),
// on a data directory and ports of this test's own: a data directory from before (its JetStream
// store written by a NATS that took no credentials) gets them at the next start with its streams
// kept, the password in 0600 files and not on the server's command line; `infra.sh env` names
// them, and NATS refuses a connection without them. A NATS from before still running is left as
// it is (others may be using it), with a warning, and `env` names no credentials it would refuse.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { connect } from '@nats-io/transport-node';
import { natsServers } from '@wap/events';
import { ROOT } from '@wap/fleet';
import { freePorts, until } from '@wap/testkit';

const run = promisify(execFile);
const DATA = mkdtempSync(path.join(tmpdir(), 'wap-infra-creds-'));
// Postgres's own user (infra.sh runs it as that user under root) enters the data directory.
chmodSync(DATA, 0o755);
let env: Record<string, string> = {};
let natsPort = 0;
let monitorPort = 0;
let older: ChildProcess | undefined;

const infraSh = async (command: string) =>
  run(path.join(ROOT, 'scripts/infra.sh'), [command], { env: { ...process.env, ...env }, encoding: 'utf8' });

/** A nats-server as infra.sh started it before NATS took credentials. */
async function startOlderNats(): Promise<ChildProcess> {
  const args = ['-a', '127.0.0.1', '-p', String(natsPort), '-m', String(monitorPort), '-js', '-sd'];
  const proc = spawn('nats-server', [...args, path.join(DATA, 'nats')], { stdio: 'ignore' });
  await until('the older NATS to answer', async () => {
    const r = await fetch(`http://127.0.0.1:${monitorPort}/healthz`).catch(() => undefined);
    return r?.status === 200;
  });
  return proc;
}

async function stop(proc: ChildProcess | undefined): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  await exited;
}

const natsUrlOf = (out: string) => /^NATS_URL=(.+)$/m.exec(out)?.[1] ?? '';

/** What a connection with `url`'s servers and the credentials given came to. */
async function connectWith(url: string, credentials: 'as given' | 'none'): Promise<string> {
  const options = natsServers(url);
  const chosen = credentials === 'none' ? { servers: options.servers } : options;
  return connect({ ...chosen, reconnect: false }).then(
    async (nc) => {
      await nc.close();
      return 'connected';
    },
    (err: Error) => err.message,
  );
}

before(async () => {
  const [pg, nats, monitor] = await freePorts(3);
  natsPort = nats as number;
  monitorPort = monitor as number;
  env = {
    WAP_DATA_DIR: DATA,
    WAP_PG_PORT: String(pg),
    WAP_NATS_PORT: String(natsPort),
    WAP_NATS_MON_PORT: String(monitorPort),
  };
});

after(async () => {
  await stop(older);
  await infraSh('stop').catch(() => undefined);
  rmSync(DATA, { recursive: true, force: true });
});

test('a NATS from before still running is left as it is; env names no credentials, which it takes', async () => {
  older = await startOlderNats();
  const nc = await connect({ servers: `nats://127.0.0.1:${natsPort}` });
  // JetStream's own API, as any client asks it.
  await nc.request(
    '$JS.API.STREAM.CREATE.FROM_BEFORE',
    JSON.stringify({ name: 'FROM_BEFORE', subjects: ['before.>'] }),
  );
  await nc.request('before.kept', 'a message from before');
  await nc.close();

  const started = await infraSh('start');
  assert.match(started.stderr, /takes no credentials/);
  const url = natsUrlOf((await infraSh('env')).stdout);
  assert.equal(url, `nats://127.0.0.1:${natsPort}`);
  assert.equal(await connectWith(url, 'as given'), 'connected');
});

test('at its next start it asks for a password, from 0600 files, and keeps its streams', async () => {
  await stop(older);
  await infraSh('start');
  const url = natsUrlOf((await infraSh('env')).stdout);
  const { user, pass } = natsServers(url);
  assert.equal(user, 'wap');
  assert.ok(pass && pass.length >= 20, url.replace(/:[^:@/]+@/, ':***@'));
  for (const file of ['nats.password', 'nats.conf']) {
    assert.equal(statSync(path.join(DATA, file)).mode & 0o777, 0o600, file);
  }
  const pid = readFileSync(path.join(DATA, 'nats.pid'), 'utf8').trim();
  assert.ok(!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(pass), 'not on the command line');

  assert.match(await connectWith(url, 'none'), /Authorization Violation/);
  assert.equal(await connectWith(url, 'as given'), 'connected');
  const nc = await connect(natsServers(url));
  try {
    const info = (await nc.request('$JS.API.STREAM.INFO.FROM_BEFORE')).json<{ state?: { messages: number } }>();
    assert.equal(info.state?.messages, 1, 'the stream written before is kept, with its message');
  } finally {
    await nc.close();
  }
  // Started again, the same password.
  await infraSh('stop');
  await infraSh('start');
  assert.equal(natsUrlOf((await infraSh('env')).stdout), url);
});
