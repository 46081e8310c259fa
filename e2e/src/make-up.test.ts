import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { Fleet } from '@wap/fleet';
import { until } from '@wap/testkit';
import puppeteer from 'puppeteer-core';
import { call } from './api.js';
import { makeUp, upAndReady } from './make-up-run.js';
import { promptOf, startScriptedModel, step } from './scripted-agent.js';
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

  test("serves the demo shop at the address it prints, which a first run reaches and the API's is not", async () => {
    // A scripted model stands in for the embedded one (docs/demo.md): it opens the mug's page and answers
    // with what the page showed it.
    const scripted = await startScriptedModel();
    try {
      const dotenv = Object.entries(scripted.env)
        .map(([k, v]) => `${k}='${v}'`)
        .join('\n');
      const run = await makeUp(`${dotenv}\n`);
      runs.push(run);
      const { url, key } = await upAndReady(run);
      const demo = /Demo:\s+(\S+)/.exec(run.output())?.[1] ?? '';
      assert.match(demo, /^http:\/\/127\.0\.0\.3:\d+\/$/, run.output());
      assert.doesNotMatch(run.output(), /Settings: .*DEMO_SITE/, 'make up says what it set apart from the .env');
      const task = 'Find the price of the blue mug and answer with it.';
      scripted.scripts.set(task, (prompt) => {
        if (!prompt.includes(`Page: ${demo}products/blue-mug`))
          return step([{ action: 'navigate', url: `${demo}products/blue-mug` }]);
        // What the shop's page put in front of the model: its form's button, read from the page.
        const seen = /Add to cart/.test(prompt) ? 'the mug page' : 'no shop page';
        return step([{ action: 'finish', success: true, answer: `read ${seen}` }]);
      });
      const submitted = await call<{ id: string }>(url, 'POST', '/v1/agent', { key, body: { task, url: demo } });
      assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
      type Run = { status: string; outcome: string | null; answer: unknown; reason: unknown };
      let last: Run | undefined;
      await until(
        'the run on the demo shop to settle',
        async () => {
          last = (await call<{ run: Run }>(url, 'GET', `/v1/agent/${submitted.body.id}`, { key })).body.run;
          return last?.status === 'settled';
        },
        120_000,
      );
      assert.deepEqual([last?.outcome, last?.answer], ['completed', 'read the mug page'], JSON.stringify(last));
      assert.ok(
        scripted.model.requests.some((r) => promptOf(r).includes('Price')),
        "the model was shown the shop's page",
      );
      // A scrape reaches it too, through the same guard.
      const page = await call<{ data: { markdown: string } }>(url, 'POST', '/v1/scrape', {
        key,
        body: { url: `${demo}products/desk-lamp`, formats: ['markdown'] },
      });
      assert.equal(page.status, 200, JSON.stringify(page.body));
      assert.match(page.body.data.markdown, /€34\.50/);
      // The rest of loopback stays refused: the API's own address first.
      const api = await call<{ code: string; details: { reason: string } }>(url, 'POST', '/v1/agent', {
        key,
        body: { task, url: `${url}/` },
      });
      assert.deepEqual(
        [api.status, api.body.code, api.body.details?.reason],
        [422, 'page_unreachable', 'private_address'],
      );
      run.child.kill('SIGTERM');
      assert.equal(await run.exited, 0);
    } finally {
      await scripted.model.close();
    }
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
