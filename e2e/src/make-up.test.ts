import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { Fleet, ROOT } from '@wap/fleet';
import { freePort, infra, until } from '@wap/testkit';
import puppeteer from 'puppeteer-core';
import { call } from './api.js';

const CLI = path.join(ROOT, 'libs/fleet/dist/cli.js');

/** `make up`'s own command (libs/fleet/dist/cli.js up) with its data, ports, databases and .env of its own. */
async function makeUp(dotenv: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'wap-up-'));
  writeFileSync(path.join(dir, '.env'), dotenv);
  const local = infra();
  const dbPrefix = `t${randomBytes(4).toString('hex')}_`;
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATABASE_ADMIN_URL: local.adminUrl,
    NATS_URL: local.natsUrl,
    WAP_DATA_DIR: dir,
    WAP_ENV_FILE: path.join(dir, '.env'),
    WAP_DB_PREFIX: dbPrefix,
    WAP_HTTP_PORT: String(await freePort()),
    WAP_CDP_PORT: String(await freePort()),
    // Seven consecutive ports from a random base below Linux's ephemeral range (32768 on), where the ports
    // other tests' browsers and clients were given live: a clash fails the start loudly, not the assertions.
    WAP_GRPC_BASE_PORT: String(10_000 + Math.floor(Math.random() * 20_000)),
  };
  const child = spawn(process.execPath, [CLI, 'up'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output, dbPrefix, dir, infra: local };
}

async function upAndReady(run: Awaited<ReturnType<typeof makeUp>>): Promise<{ url: string; key: string }> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const up = /Gateway:\s+(\S+)\n\s+API key:\s+(\S+)/.exec(run.output());
    if (up?.[1] && up[2]) return { url: up[1], key: up[2] };
    if (run.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`make up did not come up:\n${run.output()}`);
}

const runs: Awaited<ReturnType<typeof makeUp>>[] = [];
after(async () => {
  for (const run of runs) {
    if (run.child.exitCode === null) run.child.kill('SIGTERM');
    await run.exited;
    await new Fleet({ infra: run.infra, dbPrefix: run.dbPrefix, logDir: run.dir }).dropDatabases();
  }
});

describe('make up', () => {
  test('passes the settings of .env to the services it starts', async () => {
    const run = await makeUp('# the gateway takes small bodies only\nMAX_BODY_BYTES=2048\nLOG_LEVEL=debug\n');
    runs.push(run);
    const { url, key } = await upAndReady(run);
    assert.match(run.output(), /Settings: .*MAX_BODY_BYTES.* from /);
    const r = await call(url, 'POST', '/v1/scrape', { key, body: { url: `https://example.com/${'a'.repeat(3_000)}` } });
    assert.equal(r.status, 413, JSON.stringify(r.body));
    assert.equal((r.body.details as { limit: number }).limit, 2048, 'the limit came from .env');
    // The console's owner account is printed, kept in the data directory, and signs in.
    const login = /Console:\s+(\S+)\s+\((\S+), password (\S+);/.exec(run.output());
    assert.ok(login?.[1] && login[2] && login[3], run.output());
    assert.equal(login[1], `${url}/console`);
    assert.equal(readFileSync(path.join(run.dir, 'console-login'), 'utf8'), `${login[2]}\n${login[3]}\n`);
    const page = await fetch(login[1]);
    assert.equal(page.status, 200, 'the console is built and served');
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const session = await fetch(`${url}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: new URL(url).origin },
      body: JSON.stringify({ email: login[2], password: login[3] }),
    });
    assert.equal(session.status, 200, await session.clone().text());
    assert.equal(((await session.json()) as { role: string }).role, 'owner');
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
  });

  test('refuses a .env that sets what the fleet owns, or a variable no service reads, before starting anything', async () => {
    for (const [dotenv, named] of [
      ['DATABASE_URL=postgresql://elsewhere/db\n', /DATABASE_URL: set by the fleet for each service/],
      ['EGRES_ALLOW=127.0.0.0/8\n', /EGRES_ALLOW: no service reads it/],
    ] as const) {
      const run = await makeUp(dotenv);
      runs.push(run);
      assert.equal(await run.exited, 1);
      assert.match(run.output(), named);
    }
  });

  test('a service that dies is started again: a killed browser host comes back and bills its session to the end', async () => {
    const run = await makeUp('');
    runs.push(run);
    const { url, key } = await upAndReady(run);
    const browser = await puppeteer.connect({
      browserWSEndpoint: `${url.replace(/^http/, 'ws')}/connect`,
      headers: { Authorization: `Bearer ${key}` },
    });
    const cdp = await browser.target().createCDPSession();
    const chromium = (await cdp.send('SystemInfo.getProcessInfo')).processInfo.find((p) => p.type === 'browser')?.id;
    // The browser host is Chromium's parent (field 4 of /proc/<pid>/stat).
    const host = Number(readFileSync(`/proc/${chromium}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
    type Session = {
      id: string;
      status: string;
      outcome: string | null;
      durationSeconds: number;
      usage: { meters: Record<string, number> };
    };
    const sessions = async () =>
      (await call<{ sessions: Session[] }>(url, 'GET', '/v1/sessions', { key })).body.sessions ?? [];
    await until('the session has run 5 s', async () => ((await sessions())[0]?.durationSeconds ?? 0) >= 5);
    const ran = (await sessions())[0]?.durationSeconds ?? 0;
    process.kill(host, 'SIGKILL');
    await browser.disconnect().catch(() => undefined);
    await until(
      'the restarted host ended the session and finished its bill',
      async () => (await sessions())[0]?.outcome === 'host_lost',
      90_000,
    );
    const [session] = await sessions();
    // Billed to its host's last heartbeat: at most its 2 s short of the time it ran.
    assert.ok(
      (session?.usage.meters.context_seconds ?? 0) >= ran - 2,
      `ran ${ran} s: ${JSON.stringify(session?.usage)}`,
    );
    assert.match(run.output(), /browser-host exited \(SIGKILL\); starting it again in 1 s/);
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
  });
});
