import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { Fleet } from '@wap/fleet';
import { until } from '@wap/testkit';
import puppeteer from 'puppeteer-core';
import { call } from './api.js';
import { makeUp, upAndReady } from './make-up-run.js';
import { ancestorWith, sessionChromium } from './session-chromium.js';

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
    // A viewport no other session has: the test finds its Chromium by it.
    const browser = await puppeteer.connect({
      browserWSEndpoint: `${url.replace(/^http/, 'ws')}/connect?viewportWidth=1111`,
      headers: { Authorization: `Bearer ${key}` },
    });
    const chromium = sessionChromium(1111);
    assert.ok(chromium, "the session's Chromium");
    const host = ancestorWith(chromium, 'browser-host');
    assert.ok(host, 'the browser host that started it');
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
