// GET /connect through the real fleet: unmodified Playwright and Puppeteer
// drive a browser-host Chromium with an API key, both URL forms; tickets,
// slots and browser minutes behave as docs/connect.md says.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { type Fleet, SERVICES } from '@wap/fleet';
import { freePort, startFleet, until } from '@wap/testkit';
import pg from 'pg';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { call, upgrade } from './api.js';

let fleet: Fleet;
let site: import('node:http').Server;
let siteUrl: string;

const FORM = `<!doctype html><html><head><title>Form</title></head><body>
<input id="name"><button id="go" onclick="document.getElementById('out').textContent = 'Hello, ' + document.getElementById('name').value">go</button>
<p id="out"></p></body></html>`;

/** The pages of the recorded session: a form with a password and a frame from another origin, then two more. */
function recordedPage(url: string): string {
  const port = (site.address() as { port: number }).port;
  if (url === '/rec/frame') return '<!doctype html><p>Framed from another origin</p>';
  if (url === '/rec/one')
    return `<!doctype html><title>One</title><h1>Sign up</h1><input id="name"><input id="secret" type="password">
<button id="go" onclick="document.getElementById('out').textContent = 'Welcome, ' + document.getElementById('name').value">go</button>
<p id="out"></p><iframe src="http://localhost:${port}/rec/frame"></iframe>`;
  return `<!doctype html><title>${url}</title><h1>Page ${url.slice(5)}</h1><p>The last words of ${url.slice(5)}</p>`;
}

before(async () => {
  const { createServer } = await import('node:http');
  site = createServer((req, res) => {
    if (req.url === '/api.json')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"answer":42}');
    if (req.url === '/missing') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(req.url?.startsWith('/rec/') ? recordedPage(req.url) : FORM);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}/form`;
  // Room for the sessions tests leave waiting for their tickets (30 s each), so no test meets another's.
  fleet = await startFleet({ env: { EGRESS_ALLOW: '127.0.0.0/8', SESSION_WARM: '1', SESSION_CAPACITY: '32' } });
});

after(async () => {
  await fleet?.stop();
  await fleet?.dropDatabases();
  site?.close();
});

const wsBase = () => fleet.gatewayUrl.replace(/^http/, 'ws');
/** Every key this file creates, to look for in the logs at the end. */
const keys: string[] = [];
const workspace = async (plan = 'free') => {
  const created = await fleet.workspace(plan);
  keys.push(created.apiKey);
  return created;
};
const auth = (apiKey: string) => ({ Authorization: `Bearer ${apiKey}` });

/** Drives a page as a user script would: navigate, type, click, evaluate, screenshot. */
async function drive(page: {
  goto(url: string): Promise<unknown>;
  type(selector: string, text: string): Promise<unknown>;
  click(selector: string): Promise<unknown>;
  evaluate<T>(fn: () => T): Promise<T>;
  screenshot(): Promise<Uint8Array>;
}) {
  await page.goto(siteUrl);
  await page.type('#name', 'Ada');
  await page.click('#go');
  // Runs in the page, where `document` exists; typed loosely here (the tests compile without the DOM library).
  const text = await page.evaluate(
    () =>
      (
        globalThis as unknown as { document: { getElementById(id: string): { textContent: string } | null } }
      ).document.getElementById('out')?.textContent,
  );
  assert.equal(text, 'Hello, Ada');
  const png = await page.screenshot();
  assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG');
}

describe('GET /connect', () => {
  test('Playwright connectOverCDP with the http URL drives the browser', async () => {
    const { apiKey } = await workspace('free');
    const browser = await chromium.connectOverCDP(`${fleet.gatewayUrl}/connect`, { headers: auth(apiKey) });
    try {
      const context = browser.contexts()[0] ?? (await browser.newContext());
      await drive(await context.newPage());
    } finally {
      await browser.close();
    }
  });

  test('Playwright connectOverCDP with the ws URL follows the redirect and drives the browser', async () => {
    const { apiKey } = await workspace('free');
    const browser = await chromium.connectOverCDP(`${wsBase()}/connect?idleTimeout=5`, { headers: auth(apiKey) });
    try {
      const context = browser.contexts()[0] ?? (await browser.newContext());
      await drive(await context.newPage());
    } finally {
      await browser.close();
    }
  });

  test('Puppeteer with browserWSEndpoint and with browserURL drives the browser', async () => {
    const { apiKey } = await workspace('free');
    for (const endpoint of [
      { browserWSEndpoint: `${wsBase()}/connect` },
      { browserURL: `${fleet.gatewayUrl}/connect` },
    ]) {
      const browser = await puppeteer.connect({ ...endpoint, headers: auth(apiKey) });
      try {
        const page = await browser.newPage();
        await drive({
          goto: (u) => page.goto(u),
          type: (s, t) => page.type(s, t),
          click: (s) => page.click(s),
          evaluate: (fn) => page.evaluate(fn),
          screenshot: () => page.screenshot(),
        });
      } finally {
        await browser.close();
      }
    }
  });

  test("a session's locale, time zone and viewport reach its pages, which see Chrome, not a headless browser", async () => {
    const { apiKey } = await workspace('free');
    const query = 'locale=de-DE&timezone=Asia/Tokyo&viewportWidth=1024&viewportHeight=700';
    const browser = await chromium.connectOverCDP(`${fleet.gatewayUrl}/connect?${query}`, { headers: auth(apiKey) });
    try {
      const page = await (browser.contexts()[0] ?? (await browser.newContext())).newPage();
      await page.goto(siteUrl);
      const seen = (await page.evaluate(`({
        ua: navigator.userAgent,
        webdriver: navigator.webdriver,
        language: navigator.language,
        number: (1234.5).toLocaleString(),
        timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
        viewport: [innerWidth, innerHeight],
      })`)) as {
        ua: string;
        webdriver: boolean;
        language: string;
        number: string;
        timezone: string;
        viewport: number[];
      };
      assert.doesNotMatch(seen.ua, /Headless/);
      assert.match(seen.ua, /Chrome\/\d+\.0\.0\.0 /);
      assert.deepEqual(
        { ...seen, ua: undefined },
        {
          ua: undefined,
          webdriver: false,
          language: 'de-DE',
          number: '1.234,5',
          timezone: 'Asia/Tokyo',
          viewport: [1024, 700],
        },
      );
    } finally {
      await browser.close();
    }
    const unknown = await call(fleet.gatewayUrl, 'GET', '/connect/json/version?timezone=Mars/Olympus', { key: apiKey });
    assert.equal(unknown.status, 400);
    assert.equal(
      (unknown.body as { details?: { issues?: { path: string }[] } }).details?.issues?.[0]?.path,
      'query.timezone',
    );
  });

  test('json/version answers 200 with a ticketed URL on the browser host, never a redirect, and no-store', async () => {
    const { apiKey } = await workspace('free');
    for (const path of ['/connect/json/version', '/connect/json/version/']) {
      const r = await fetch(`${fleet.gatewayUrl}${path}?idleTimeout=5`, { headers: auth(apiKey), redirect: 'manual' });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('cache-control'), 'no-store');
      const body = (await r.json()) as { webSocketDebuggerUrl: string; Browser: string };
      assert.match(body.webSocketDebuggerUrl, /^ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\/[0-9a-f-]{36}\?ticket=/);
      assert.doesNotMatch(body.webSocketDebuggerUrl, new RegExp(apiKey.slice(0, 12)), 'the API key is not in the URL');
      assert.match(body.Browser, /Chrome/);
    }
  });

  test('without a valid key both forms answer 401 before any upgrade; bad options are 400', async () => {
    const plain = await call(fleet.gatewayUrl, 'GET', '/connect/json/version');
    assert.equal(plain.status, 401);
    assert.equal((plain.body as { code: string }).code, 'unauthorized');
    const ws = await upgrade(`${wsBase()}/connect`, { Authorization: 'Bearer ock_nope.nope' });
    assert.equal(ws.res.statusCode, 401);
    assert.equal(JSON.parse(ws.body).code, 'unauthorized');
    assert.match(String(ws.res.headers['www-authenticate']), /^Bearer realm="api"/);
    const { apiKey } = await workspace('free');
    const bad = await call(fleet.gatewayUrl, 'GET', '/connect/json/version?idleTimeout=-1&colour=red', { key: apiKey });
    assert.equal(bad.status, 400);
    const paths = (bad.body as { details: { issues: { path: string }[] } }).details.issues.map((i) => i.path).sort();
    assert.deepEqual(paths, ['query', 'query.idleTimeout']);
  });

  test('a ticket is good once: a second connect with it is refused', async () => {
    const { apiKey } = await workspace('free');
    const r = await call<{ webSocketDebuggerUrl: string }>(
      fleet.gatewayUrl,
      'GET',
      '/connect/json/version?idleTimeout=5',
      {
        key: apiKey,
      },
    );
    const url = r.body.webSocketDebuggerUrl;
    assert.equal((await upgrade(url)).res.statusCode, 101);
    const again = await upgrade(url);
    assert.equal(again.res.statusCode, 401);
    const forged = await upgrade(url.replace(/ticket=[^&]+/, 'ticket=AAAA'));
    assert.equal(forged.res.statusCode, 401);
  });

  test('the free plan has two browsers: the third connect is 429 at once, and closing one frees a slot', async () => {
    const { apiKey } = await workspace('free');
    const first = await chromium.connectOverCDP(`${fleet.gatewayUrl}/connect`, { headers: auth(apiKey) });
    const second = await chromium.connectOverCDP(`${fleet.gatewayUrl}/connect`, { headers: auth(apiKey) });
    try {
      const third = await call(fleet.gatewayUrl, 'GET', '/connect/json/version', { key: apiKey });
      assert.equal(third.status, 429);
      const details = (
        third.body as { code: string; details: { kind: string; limit: number; inUse: number; active: number } }
      ).details;
      assert.deepEqual(
        { kind: details.kind, limit: details.limit, inUse: details.inUse, active: details.active },
        { kind: 'browsers', limit: 2, inUse: 2, active: 2 },
      );
      assert.ok(Number(third.headers.get('retry-after')) >= 1);
      const ws = await upgrade(`${wsBase()}/connect`, auth(apiKey));
      assert.equal(ws.res.statusCode, 429, 'the upgrade form too, before any upgrade');
    } finally {
      await first.close();
    }
    try {
      // Closing the browser ends the session at once: its slot is free again.
      await until('a slot frees', async () => {
        const r = await call(fleet.gatewayUrl, 'GET', '/connect/json/version?idleTimeout=5', { key: apiKey });
        return r.status === 200;
      });
    } finally {
      await second.close();
    }
  });

  test('a client that reconnects within the keep-alive window lands on the same page; after the session, not_found', async () => {
    const { apiKey } = await workspace('free');
    const version = (query: string) =>
      call<{ webSocketDebuggerUrl: string }>(fleet.gatewayUrl, 'GET', `/connect/json/version?${query}`, {
        key: apiKey,
      });
    const first = await version('idleTimeout=30');
    const sessionId = /\/devtools\/browser\/([0-9a-f-]{36})/.exec(first.body.webSocketDebuggerUrl)?.[1] as string;
    const browser = await puppeteer.connect({ browserWSEndpoint: first.body.webSocketDebuggerUrl });
    const page = await browser.newPage();
    await page.goto(siteUrl);
    await browser.disconnect();

    const again = await version(`session=${sessionId}`);
    assert.equal(again.status, 200);
    const back = await puppeteer.connect({ browserWSEndpoint: again.body.webSocketDebuggerUrl });
    const urls = (await back.pages()).map((p) => p.url());
    assert.ok(urls.includes(siteUrl), `pages: ${urls.join(', ')}`);
    await back.close();

    await until('the session is gone', async () => (await version(`session=${sessionId}`)).status === 404);
    const other = await workspace('free');
    const stranger = await call(fleet.gatewayUrl, 'GET', `/connect/json/version?session=${sessionId}`, {
      key: other.apiKey,
    });
    assert.equal(stranger.status, 404, "another workspace's session does not exist for it");
  });

  test("a session cannot read the host's files or reach private addresses by any road; two sessions share no cookies or storage", async () => {
    const { apiKey } = await workspace('pro');
    const browser = await puppeteer.connect({ browserWSEndpoint: `${wsBase()}/connect`, headers: auth(apiKey) });
    const other = await puppeteer.connect({ browserWSEndpoint: `${wsBase()}/connect`, headers: auth(apiKey) });
    try {
      const page = await browser.newPage();
      await assert.rejects(page.goto('file:///etc/hostname'), /urlSchemeNotAllowed/);
      await assert.rejects(
        browser.newPage().then((p) => p.goto('chrome://version')),
        /Refused/,
      );
      await page.goto(siteUrl);
      // The egress guard answers for an address it refuses (a real metadata service would not answer here at all).
      for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://10.1.2.3/']) {
        const refused = await (await browser.newPage()).goto(url);
        assert.equal(refused?.status(), 403, url);
        assert.match(await (refused?.text() ?? Promise.resolve('')), /egress guard/i, url);
      }
      // From inside the page: fetch, an iframe, and a target the client creates over CDP, to a loopback
      // address outside the allow-list (::1) where a server counts what reaches it: nothing must.
      const { createServer } = await import('node:http');
      let reached = 0;
      const v6 = createServer((_req, res) => {
        reached++;
        res.end('secret');
      });
      await new Promise<void>((r) => v6.listen(0, '::1', r));
      const v6Url = `http://[::1]:${(v6.address() as { port: number }).port}/`;
      try {
        const fetched = await page.evaluate(`fetch('${v6Url}').then((r) => r.text(), () => 'failed')`);
        assert.equal(fetched, 'failed');
        await page.evaluate(`new Promise((resolve) => {
          const frame = document.createElement('iframe');
          frame.onload = resolve;
          frame.src = '${v6Url}';
          document.body.appendChild(frame);
        })`);
        const framed = page.frames().find((f) => f.url().startsWith(v6Url));
        assert.match((await framed?.content()) ?? '', /egress guard/i, "the iframe got the guard's answer");
        const cdp = await browser.target().createCDPSession();
        await assert.rejects(cdp.send('Target.createTarget', { url: 'file:///etc/passwd' }), /Refused/);
        const created = await cdp.send('Target.createTarget', { url: v6Url });
        const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: created.targetId, flatten: true });
        const inTarget = cdp.connection()?.session(sessionId);
        let last = '';
        await until('the created target has its answer', async () => {
          const read = await inTarget?.send('Runtime.evaluate', {
            expression: 'document.body ? document.body.innerText : ""',
            returnByValue: true,
          });
          last = String(read?.result.value ?? '');
          return /egress guard/i.test(last);
        }).catch((err) => {
          throw new Error(`${err.message}: ${last.slice(0, 400)}`);
        });
        await cdp.send('Target.closeTarget', { targetId: created.targetId });
        assert.equal(reached, 0, 'nothing reached the address outside the allow-list');
      } finally {
        v6.close();
      }
      await page.evaluate(() => {
        const g = globalThis as unknown as {
          document: { cookie: string };
          localStorage: { setItem(k: string, v: string): void };
        };
        g.document.cookie = 'who=first; path=/';
        g.localStorage.setItem('who', 'first');
      });
      const second = await other.newPage();
      await second.goto(siteUrl);
      const kept = await second.evaluate(() => {
        const g = globalThis as unknown as {
          document: { cookie: string };
          localStorage: { getItem(k: string): string | null };
        };
        return { cookie: g.document.cookie, stored: g.localStorage.getItem('who') };
      });
      assert.deepEqual(
        kept,
        { cookie: '', stored: null },
        "the other session sees none of the first's cookies or storage",
      );
    } finally {
      await browser.close();
      await other.close();
    }
  });

  test('a Chromium killed mid-session ends its session and frees its slot at once', async () => {
    const { apiKey, workspaceId } = await workspace('free');
    const first = await puppeteer.connect({ browserWSEndpoint: `${wsBase()}/connect`, headers: auth(apiKey) });
    const second = await puppeteer.connect({ browserWSEndpoint: `${wsBase()}/connect`, headers: auth(apiKey) });
    const cdp = await first.target().createCDPSession();
    const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
    const pid = processInfo.find((p) => p.type === 'browser')?.id;
    assert.ok(pid, 'the browser process');
    process.kill(pid, 'SIGKILL');
    try {
      await until(
        'a slot frees',
        async () => (await call(fleet.gatewayUrl, 'GET', '/connect/json/version', { key: apiKey })).status === 200,
      );
      // Ended as crashed, not as closed by its client, though the client's connection went with Chromium.
      // (Read from the host's rows: the free plan's requests per minute are spent on the polls above.)
      const db = new pg.Client({ connectionString: fleet.databaseUrl('browser-host') });
      await db.connect();
      try {
        // The killed one is the first to end: the second is still open.
        const read = async () =>
          (
            await db.query<{ status: string; outcome: string }>(
              `SELECT status, outcome FROM browser_sessions WHERE workspace_id = $1 AND status = 'ended'
                ORDER BY ended_at LIMIT 1`,
              [workspaceId],
            )
          ).rows[0];
        await until('the session is recorded as ended', async () => (await read())?.status === 'ended');
        assert.equal((await read())?.outcome, 'crashed');
      } finally {
        await db.end();
      }
    } finally {
      await second.close();
    }
  });

  test('a client killed without closing its browser ends its session and frees its slot', async () => {
    const { apiKey, workspaceId } = await workspace('free');
    const opened = await call<{ webSocketDebuggerUrl: string }>(fleet.gatewayUrl, 'GET', '/connect/json/version', {
      key: apiKey,
    });
    const sessionId = /\/devtools\/browser\/([0-9a-f-]{36})/.exec(opened.body.webSocketDebuggerUrl)?.[1] as string;
    // A script in its own process drives a page, then is killed: no Browser.close, no WebSocket close frame.
    const script = `
      const puppeteer = require('puppeteer-core');
      puppeteer.connect({ browserWSEndpoint: process.argv[1] })
        .then((b) => b.newPage().then((p) => p.goto(process.argv[2])))
        .then(() => console.log('driving'));
      setInterval(() => {}, 1000);`;
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['-e', script, opened.body.webSocketDebuggerUrl, siteUrl], {
      cwd: path.dirname(require.resolve('puppeteer-core/package.json')),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d) => String(d).includes('driving') && resolve());
      child.on('exit', (code) => reject(new Error(`the client exited with ${code}`)));
    });
    const slots = async () =>
      (await fleet.admin<{ holders: { holder: string }[] }>('slots', 'list', workspaceId)).holders.map((h) => h.holder);
    assert.deepEqual(await slots(), [`session:${sessionId}`]);
    child.kill('SIGKILL');
    await until('the slot is free', async () => (await slots()).length === 0);
    const read = () =>
      call<{ session: { status: string; outcome: string } }>(fleet.gatewayUrl, 'GET', `/v1/sessions/${sessionId}`, {
        key: apiKey,
      });
    await until('the session is recorded as ended', async () => (await read()).body.session?.status === 'ended');
    assert.equal((await read()).body.session.outcome, 'closed');
  });

  test('after 20 connect and close cycles no slot lease is left', async () => {
    const { apiKey, workspaceId } = await workspace('free');
    for (let i = 0; i < 20; i++) {
      // A closed session frees its slot a moment after close() returns: two slots, so the next may wait for one.
      let browser: Awaited<ReturnType<typeof puppeteer.connect>> | undefined;
      await until('a connect', async () => {
        browser = await puppeteer.connect({ browserWSEndpoint: `${wsBase()}/connect`, headers: auth(apiKey) });
        return true;
      });
      await browser?.close();
    }
    const ledger = new pg.Client({ connectionString: fleet.databaseUrl('billing-ledger') });
    await ledger.connect();
    try {
      await until('every lease is released', async () => {
        const { rows } = await ledger.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM slot_leases WHERE workspace_id = $1 AND expires_at > now()',
          [workspaceId],
        );
        return rows[0]?.n === 0;
      });
    } finally {
      await ledger.end();
    }
  });

  test('a browser-host killed 65 s into a session: its bill is finished once, its slot comes back, its Chromium ends', async () => {
    const { apiKey, workspaceId } = await workspace('free');
    const browsers = [
      await puppeteer.connect({ browserWSEndpoint: `${wsBase()}/connect`, headers: auth(apiKey) }),
      await puppeteer.connect({ browserWSEndpoint: `${wsBase()}/connect`, headers: auth(apiKey) }),
    ];
    const cdp = await (browsers[0] as Awaited<ReturnType<typeof puppeteer.connect>>).target().createCDPSession();
    const pid = (await cdp.send('SystemInfo.getProcessInfo')).processInfo.find((p) => p.type === 'browser')
      ?.id as number;
    const hostDb = new pg.Client({ connectionString: fleet.databaseUrl('browser-host') });
    const ledgerDb = new pg.Client({ connectionString: fleet.databaseUrl('billing-ledger') });
    await Promise.all([hostDb.connect(), ledgerDb.connect()]);
    const rows = async () =>
      (
        await hostDb.query<{
          id: string;
          status: string;
          outcome: string | null;
          charged_mc: string;
          seconds: number;
        }>(
          `SELECT id, status, outcome, charged_mc,
                  ceil(extract(epoch FROM heartbeat_at - started_at))::int AS seconds
             FROM browser_sessions WHERE workspace_id = $1 ORDER BY started_at`,
          [workspaceId],
        )
      ).rows;
    try {
      // Two settles (every 30 s) reach the ledger, then the host dies between them, once its heartbeat says 65 s.
      await until('the sessions have run 65 s', async () => (await rows()).every((r) => r.seconds >= 65), 90_000);
      await fleet.stopOne('browser-host', 'SIGKILL');
      fleet.startOne('browser-host');
      await fleet.waitReady(60_000);
      // Restarting under the same URL, the host finishes its previous run's sessions at once.
      await until('both rows end as host_lost', async () =>
        (await rows()).every((r) => r.status === 'ended' && r.outcome === 'host_lost'),
      );
      let total = 0n;
      for (const row of await rows()) {
        // Browser time runs until the host's last heartbeat (every 2 s): 65 s or a little more, rounded once.
        assert.ok(row.seconds >= 65 && row.seconds <= 70, `billed ${row.seconds} s`);
        const price = (BigInt(row.seconds) * 1000n + 59n) / 60n;
        assert.equal(BigInt(row.charged_mc), price, `the row says what ${row.seconds} s cost`);
        const usage = await ledgerDb.query<{ charged: string; n: number }>(
          'SELECT coalesce(sum(charged_mc), 0)::text AS charged, count(*)::int AS n FROM usage_records WHERE reference = $1',
          [row.id],
        );
        assert.equal(BigInt(usage.rows[0]?.charged ?? '0'), price, 'the ledger charged it once');
        total += price;
      }
      const credits = (
        await call<{ held: number; used: number }>(fleet.gatewayUrl, 'GET', '/v1/credits', { key: apiKey })
      ).body;
      assert.equal(credits.held, 0, 'nothing stays held');
      // The lease lapses 20 s after its last renewal at most; the restarted host ended the orphan browser.
      await until(
        'a slot frees',
        async () => (await call(fleet.gatewayUrl, 'GET', '/connect/json/version', { key: apiKey })).status === 200,
        60_000,
      );
      assert.ok(total > 2_000n);
    } finally {
      await Promise.all([hostDb.end(), ledgerDb.end()]);
    }
    const alive = (() => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    })();
    assert.equal(alive, false, "the killed host's Chromium is gone");
    for (const b of browsers) await b.disconnect().catch(() => undefined);
  });

  test('with two browser hosts, sessions spread over both and a reconnect finds the one that has it', async () => {
    const replicaPort = String(await freePort());
    const replica = await fleet.replica('browser-host', 'browser-host-2', { CDP_PORT: replicaPort });
    try {
      const { apiKey } = await workspace('pro');
      const open = async (query = '') =>
        (
          await call<{ webSocketDebuggerUrl: string }>(fleet.gatewayUrl, 'GET', `/connect/json/version?${query}`, {
            key: apiKey,
          })
        ).body.webSocketDebuggerUrl;
      const port = (url: string) => new URL(url).port;
      // Both hosts announce every 2 s: once the second is known, new sessions go to whichever has more room.
      const ports = new Set<string>();
      await until('sessions on two hosts', async () => {
        ports.add(port(await open()));
        return ports.size === 2;
      });
      const onEither = await open();
      const id = /\/devtools\/browser\/([0-9a-f-]{36})/.exec(onEither)?.[1];
      await until(
        'the session is announced by its host',
        async () => port(await open(`session=${id}`)) === port(onEither),
      );
      // A host that stops says so: the very next connects all go to the one left, none fails.
      await replica.stop();
      for (let i = 0; i < 3; i++) assert.notEqual(port(await open()), replicaPort);
    } finally {
      await replica.stop();
    }
  });

  test('a host told to stop drains: its session runs on to its end, new sessions go elsewhere', async () => {
    const replicaPort = String(await freePort());
    const replica = await fleet.replica('browser-host', 'browser-host-3', {
      CDP_PORT: replicaPort,
      SESSION_DRAIN: '40s',
      SHUTDOWN_TIMEOUT: '60s',
    });
    const { apiKey } = await workspace('pro');
    const port = (url: string) => new URL(url).port;
    const open = async () =>
      (
        await call<{ webSocketDebuggerUrl: string }>(fleet.gatewayUrl, 'GET', '/connect/json/version', {
          key: apiKey,
        })
      ).body.webSocketDebuggerUrl;
    let stopped: Promise<number | null> | undefined;
    try {
      // Sessions go to the host with the most room: the new one, once it has announced.
      let onReplica = '';
      await until('a session on the new host', async () => {
        const url = await open();
        if (port(url) === replicaPort) onReplica = url;
        return onReplica !== '';
      });
      const sessionId = /\/devtools\/browser\/([0-9a-f-]{36})/.exec(onReplica)?.[1] as string;
      const browser = await chromium.connectOverCDP(onReplica);
      const page = await (browser.contexts()[0] ?? (await browser.newContext())).newPage();
      await page.goto(siteUrl);
      stopped = replica.stop();
      // Told to stop, it says it is leaving: new sessions land on the other host at once.
      await until('the host has begun to drain', async () =>
        readFileSync(replica.logFile, 'utf8').includes('draining'),
      );
      for (let i = 0; i < 4; i++) assert.notEqual(port(await open()), replicaPort, 'no new session on a draining host');
      // Its own session still answers its client.
      await page.goto(`${siteUrl}?after-sigterm`);
      assert.equal(await page.evaluate('location.search'), '?after-sigterm');
      await browser.close();
      assert.equal(await stopped, 0, 'the host exits once its last session has ended');
      const read = async () =>
        (
          await call<{ session: { status: string; outcome: string } }>(
            fleet.gatewayUrl,
            'GET',
            `/v1/sessions/${sessionId}`,
            { key: apiKey },
          )
        ).body.session;
      await until('the session is recorded as ended', async () => (await read())?.status === 'ended');
      assert.equal((await read()).outcome, 'closed', 'ended by its client, not by the host');
    } finally {
      await (stopped ?? replica.stop());
    }
  });

  test("operators see who holds a workspace's browser slots", async () => {
    const { apiKey, workspaceId } = await workspace('builder');
    const opened = await call<{ webSocketDebuggerUrl: string }>(fleet.gatewayUrl, 'GET', '/connect/json/version', {
      key: apiKey,
    });
    const sessionId = /\/devtools\/browser\/([0-9a-f-]{36})/.exec(opened.body.webSocketDebuggerUrl)?.[1];
    const listed = await fleet.admin<{ limit: number; holders: { holder: string; expiresAt: string }[] }>(
      'slots',
      'list',
      workspaceId,
    );
    assert.equal(listed.limit, 5);
    assert.deepEqual(
      listed.holders.map((h) => h.holder),
      [`session:${sessionId}`],
    );
    assert.ok(Date.parse(listed.holders[0]?.expiresAt ?? '') > Date.now(), 'a live lease');
  });

  test('a session is listed, read and followed live through /v1/sessions with its outcome and usage, in its workspace only', async () => {
    const { apiKey } = await workspace('free');
    const other = await workspace('free');
    const opened = await call<{ webSocketDebuggerUrl: string }>(fleet.gatewayUrl, 'GET', '/connect/json/version', {
      key: apiKey,
    });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const sessionId = /\/devtools\/browser\/([0-9a-f-]{36})/.exec(opened.body.webSocketDebuggerUrl)?.[1] as string;
    const browser = await chromium.connectOverCDP(opened.body.webSocketDebuggerUrl);
    const page = await (browser.contexts()[0] ?? (await browser.newContext())).newPage();
    await page.goto(siteUrl);
    type SessionJson = {
      id: string;
      status: string;
      outcome: string | null;
      durationSeconds: number;
      usage: { credits: number; meters: Record<string, number> };
    };
    const read = (key = apiKey) =>
      call<{ session: SessionJson }>(fleet.gatewayUrl, 'GET', `/v1/sessions/${sessionId}`, { key });
    await until('the live session is recorded', async () => (await read()).body.session?.status === 'live');
    // The live feed: a frame at once, a frame per change, and the stream ends after the one that says ended.
    const live = await fetch(`${fleet.gatewayUrl}/v1/sessions/${sessionId}/live`, { headers: auth(apiKey) });
    assert.equal(live.status, 200);
    assert.match(live.headers.get('content-type') ?? '', /^text\/event-stream/);
    const frames = (async () => {
      const seen: SessionJson[] = [];
      let text = '';
      for await (const chunk of live.body as unknown as AsyncIterable<Uint8Array>) {
        text += Buffer.from(chunk).toString('utf8');
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const frame = text.slice(0, end);
          text = text.slice(end + 2);
          const data = frame.split('\n').find((l) => l.startsWith('data: '));
          if (data) seen.push((JSON.parse(data.slice(6)) as { session: SessionJson }).session);
        }
      }
      return seen;
    })();
    await browser.close();
    await until('the ended session is recorded', async () => (await read()).body.session?.status === 'ended');
    const fed = await frames;
    assert.equal(fed[0]?.status, 'live', 'the first frame: the session as it was');
    assert.equal(fed.at(-1)?.status, 'ended', 'the last frame: ended, and then the stream closed');
    assert.equal(fed.at(-1)?.outcome, 'closed');
    const missing = await fetch(`${fleet.gatewayUrl}/v1/sessions/${sessionId}/live`, {
      headers: auth(other.apiKey),
    });
    assert.equal(missing.status, 404, "another workspace's session does not exist for it");
    const { session } = (await read()).body;
    assert.equal(session.outcome, 'closed');
    const seconds = session.usage.meters.context_seconds as number;
    assert.ok(seconds >= 1, `billed ${seconds} s`);
    // 1 credit a minute, rounded up to the millicredit once.
    assert.equal(session.usage.credits, Math.ceil((seconds * 1000) / 60) / 1000);
    const listed = await call<{ sessions: SessionJson[] }>(fleet.gatewayUrl, 'GET', '/v1/sessions?status=ended', {
      key: apiKey,
    });
    assert.deepEqual(
      listed.body.sessions.map((s) => s.id),
      [sessionId],
    );
    const elsewhere = await read(other.apiKey);
    assert.equal(elsewhere.status, 404);
    assert.equal((elsewhere.body as unknown as { code: string }).code, 'not_found');
    const none = await call<{ sessions: SessionJson[] }>(fleet.gatewayUrl, 'GET', '/v1/sessions', {
      key: other.apiKey,
    });
    assert.deepEqual(none.body.sessions, []);
  });

  test('no API key, nor its secret, appears in any log line of the fleet', () => {
    assert.ok(keys.length > 5);
    for (const service of SERVICES) {
      const log = readFileSync(fleet.logFile(service), 'utf8');
      for (const key of keys) {
        const secret = key.split('.')[1] as string;
        assert.ok(!log.includes(secret), `${service} logged a key's secret`);
      }
    }
  });

  test('browser time is billed by the second, once, when the session ends', async () => {
    const { apiKey, workspaceId } = await workspace('free');
    const credits = async () =>
      (await call<{ available: number; held: number }>(fleet.gatewayUrl, 'GET', '/v1/credits', { key: apiKey })).body;
    const before = await credits();
    const browser = await chromium.connectOverCDP(`${fleet.gatewayUrl}/connect`, { headers: auth(apiKey) });
    const page = await (browser.contexts()[0] ?? (await browser.newContext())).newPage();
    await page.goto(siteUrl);
    assert.ok((await credits()).held > 0, 'minutes are held while the session runs');
    await browser.close();
    await until('the session is settled and its hold released', async () => {
      const now = await credits();
      return now.held === 0 && now.available < before.available;
    });
    const spent = before.available - (await credits()).available;
    // A few seconds of browser time at 1 credit a minute: more than nothing, well under a minute's worth.
    assert.ok(spent > 0 && spent < 0.5, `spent ${spent}`);
    // The session's row says the same: ended, closed, and what it was charged.
    const db = new pg.Client({ connectionString: fleet.databaseUrl('browser-host') });
    await db.connect();
    try {
      const read = async () =>
        (
          await db.query<{ status: string; outcome: string; charged_mc: string }>(
            `SELECT status, outcome, charged_mc FROM browser_sessions WHERE workspace_id = $1`,
            [workspaceId],
          )
        ).rows;
      // The row is ended once the bill is settled and the slot let go: a moment after the credits show it.
      await until('the row is ended', async () => (await read())[0]?.status === 'ended');
      const rows = await read();
      assert.equal(rows.length, 1);
      assert.deepEqual({ status: rows[0]?.status, outcome: rows[0]?.outcome }, { status: 'ended', outcome: 'closed' });
      assert.equal(Number(rows[0]?.charged_mc), Math.round(spent * 1000), 'millicredits charged');
    } finally {
      await db.end();
    }
  });

  test('a Playwright session is recorded: three pages, a frame of another origin, the password masked, the chain intact, replayed and exported', async () => {
    const { apiKey, workspaceId } = await workspace('free');
    const opened = await call<{ webSocketDebuggerUrl: string }>(fleet.gatewayUrl, 'GET', '/connect/json/version', {
      key: apiKey,
    });
    const sessionId = /\/devtools\/browser\/([0-9a-f-]{36})/.exec(opened.body.webSocketDebuggerUrl)?.[1] as string;
    const origin = new URL(siteUrl).origin;
    const other = origin.replace('127.0.0.1', 'localhost');
    const browser = await chromium.connectOverCDP(opened.body.webSocketDebuggerUrl);
    const page = await (browser.contexts()[0] ?? (await browser.newContext())).newPage();
    await page.goto(`${origin}/rec/one`);
    await page.fill('#name', 'Grace Hopper');
    await page.fill('#secret', 'correct-horse-battery-staple');
    await page.click('#go');
    type Recorded = {
      status: string;
      pageCount: number;
      replayUrl: string | null;
      recording: { chunks: number; head: string } | null;
    };
    const read = async () =>
      (await call<{ session: Recorded }>(fleet.gatewayUrl, 'GET', `/v1/sessions/${sessionId}`, { key: apiKey })).body
        .session;
    await page.goto(`${other}/rec/two`);
    // As a person would, the walk stays on the page until it is on record (docs/sessions.md: a page of
    // another site left within milliseconds of its load on a starved machine can go unrecorded).
    await until('the second page is on record', async () => ((await read())?.pageCount ?? 0) >= 2);
    await page.goto(`${origin}/rec/three`);
    const lastText = await page.evaluate('document.body.innerText');
    await browser.close();
    await until('the session ended with its three pages recorded', async () => {
      const s = await read();
      return s?.status === 'ended' && s.pageCount === 3;
    });
    // The session's end and its last chunk reach session-recorder by two streams: the chain may take one
    // more link a moment after the session reads ended. Once at rest, the stored chain verifies to its head.
    let session = await read();
    const verify = () =>
      call<{ valid: boolean; chunks: number; head: string }>(
        fleet.gatewayUrl,
        'POST',
        `/v1/sessions/${sessionId}/verify`,
        { key: apiKey },
      );
    let verified = await verify();
    await until('the recording is at rest and its chain verifies to its head', async () => {
      session = await read();
      verified = await verify();
      return verified.body.valid === true && verified.body.head === session.recording?.head;
    });
    assert.ok((session.recording?.chunks ?? 0) >= 1);
    assert.deepEqual(verified.body.valid, true);
    assert.equal(verified.body.head, session.recording?.head);
    // What is stored: the pages, the frame and what was typed, but never the password.
    const db = new pg.Client({ connectionString: fleet.databaseUrl('session-recorder') });
    await db.connect();
    try {
      const { rows } = await db.query<{ body: Buffer }>(
        'SELECT body FROM recording_chunks WHERE session_id = $1 ORDER BY seq',
        [sessionId],
      );
      const stored = rows.map((r) => gunzipSync(r.body).toString('utf8')).join('\n');
      for (const text of ['Sign up', 'Framed from another origin', 'Welcome, Grace Hopper', 'The last words of three'])
        assert.ok(stored.includes(text), `the recording holds "${text}"`);
      assert.ok(!stored.includes('correct-horse'), 'the password is nowhere in storage');
      assert.equal((await db.query('SELECT 1 FROM recordings WHERE workspace_id = $1', [workspaceId])).rowCount, 1);
    } finally {
      await db.end();
    }

    // The replay link opens without the key and plays to the last frame: the live page's last text.
    const replayUrl = session.replayUrl as string;
    assert.ok(replayUrl.startsWith(`${fleet.gatewayUrl}/replay/${sessionId}?`), replayUrl);
    const viewer = await chromium.launch({ executablePath: '/usr/bin/chromium' });
    /** Opens a replay, plays it to its end and reads what its last frame shows. */
    const finalText = async (url: string, offline = false) => {
      const context = await viewer.newContext({ offline });
      const tab = await context.newPage();
      // The player is awaited below; the load event itself is not what a viewer waits for (a starved
      // machine once took over 30 s to fire it for the file:// bundle).
      await tab.goto(url, { waitUntil: 'commit' });
      // Polled from here (CDP evaluates past the page's CSP; waitForFunction would eval inside it and be refused).
      await until('the player is up', async () => (await tab.evaluate('window.wapReplay !== undefined')) === true);
      await tab.evaluate('window.wapReplay.toEnd()');
      const firstLine = JSON.stringify(String(lastText).split('\n')[0]);
      await until(
        'the last frame shows the last page',
        async () =>
          (await tab.evaluate(
            `(() => { const f = document.querySelector('.replayer-wrapper iframe'); return !!(f && f.contentDocument && f.contentDocument.body && f.contentDocument.body.innerText.includes(${firstLine})); })()`,
          )) === true,
      );
      const text = await tab.evaluate(
        "document.querySelector('.replayer-wrapper iframe').contentDocument.body.innerText",
      );
      await context.close();
      return text;
    };
    try {
      assert.equal(await finalText(replayUrl), lastText);
      // A link changed in any part, or moved to another session, is refused without a hint.
      const forged = new URL(replayUrl);
      forged.searchParams.set('w', (await workspace('free')).workspaceId);
      const moved = replayUrl.replace(sessionId, '00000000-0000-4000-8000-000000000000');
      for (const url of [forged.href, moved, replayUrl.replace(/sig=[^&]+/, 'sig=AAAA')]) {
        const refused = await fetch(url);
        assert.equal(refused.status, 403, url);
        assert.equal(((await refused.json()) as { code: string }).code, 'replay_access_denied');
      }

      // The exported bundle plays from file:// with the network off; its bytes are recorded, priced at zero.
      const exported = await call<{ export: { url: string; filename: string } }>(
        fleet.gatewayUrl,
        'POST',
        `/v1/sessions/${sessionId}/export`,
        { key: apiKey },
      );
      assert.equal(exported.status, 200);
      const bundle = Buffer.from(await (await fetch(exported.body.export.url)).arrayBuffer());
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'wap-export-')), exported.body.export.filename);
      writeFileSync(file, bundle);
      assert.equal(await finalText(`file://${file}`, true), lastText);
      await until('the export is in the usage', async () => {
        const usage = await call<{ byCapability: { capability: string; meters: Record<string, number> }[] }>(
          fleet.gatewayUrl,
          'GET',
          '/v1/usage',
          { key: apiKey },
        );
        const row = usage.body.byCapability?.find((c) => c.capability === 'sessions.export');
        return row?.meters.bytes_egress === bundle.length;
      });
    } finally {
      await viewer.close();
    }
  });

  test('a session-recorder killed mid-session loses no recorded event: they wait on the stream', async () => {
    const { apiKey } = await workspace('free');
    const opened = await call<{ webSocketDebuggerUrl: string }>(fleet.gatewayUrl, 'GET', '/connect/json/version', {
      key: apiKey,
    });
    const sessionId = /\/devtools\/browser\/([0-9a-f-]{36})/.exec(opened.body.webSocketDebuggerUrl)?.[1] as string;
    const origin = new URL(siteUrl).origin;
    const read = async () =>
      (
        await call<{ session: { status: string; pageCount: number } }>(
          fleet.gatewayUrl,
          'GET',
          `/v1/sessions/${sessionId}`,
          { key: apiKey },
        )
      ).body.session;
    const browser = await chromium.connectOverCDP(opened.body.webSocketDebuggerUrl);
    const page = await (browser.contexts()[0] ?? (await browser.newContext())).newPage();
    await page.goto(`${origin}/rec/one`);
    await until('the first page is stored', async () => (await read())?.pageCount === 1);
    await fleet.stopOne('session-recorder', 'SIGKILL');
    await page.goto(`${origin}/rec/two`);
    await page.goto(`${origin}/rec/three`);
    await browser.close();
    fleet.startOne('session-recorder');
    await fleet.waitReady(60_000);
    let last: unknown;
    // A chunk the killed recorder held unacked goes out again after the stream's ack wait (10 s).
    await until(
      'every page is stored once the recorder is back',
      async () => {
        const s = await read();
        last = s;
        return s?.status === 'ended' && s.pageCount === 3;
      },
      60_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; last read ${JSON.stringify(last)}`);
    });
    const verified = await call<{ valid: boolean }>(fleet.gatewayUrl, 'POST', `/v1/sessions/${sessionId}/verify`, {
      key: apiKey,
    });
    assert.equal(verified.body.valid, true, 'the chain is whole');
  });

  test("a running session's live view shows its screen; the replay lists its requests and shows its screencast", async () => {
    const { apiKey } = await workspace('free');
    const opened = await call<{ webSocketDebuggerUrl: string }>(fleet.gatewayUrl, 'GET', '/connect/json/version', {
      key: apiKey,
    });
    const sessionId = /\/devtools\/browser\/([0-9a-f-]{36})/.exec(opened.body.webSocketDebuggerUrl)?.[1] as string;
    const origin = new URL(siteUrl).origin;
    const browser = await chromium.connectOverCDP(opened.body.webSocketDebuggerUrl);
    const viewer = await chromium.launch({ executablePath: '/usr/bin/chromium' });
    try {
      const page = await (browser.contexts()[0] ?? (await browser.newContext())).newPage();
      await page.goto(`${origin}/rec/one`);
      const read = async () =>
        (
          await call<{ session: { status: string; replayUrl: string | null } }>(
            fleet.gatewayUrl,
            'GET',
            `/v1/sessions/${sessionId}`,
            { key: apiKey },
          )
        ).body.session;
      await until('the first chunk is stored: the session has a replay link', async () => !!(await read()).replayUrl);
      const { replayUrl } = await read();
      const watch = await (await viewer.newContext()).newPage();
      await watch.goto(replayUrl as string);
      type Live = { status: string; frames: number } | undefined;
      const live = async () => (await watch.evaluate('window.wapLive')) as Live;
      await until('the live view shows a frame of the running session', async () => {
        const state = await live();
        return state?.status === 'live' && state.frames > 0;
      });
      assert.match((await watch.getAttribute('#live-frame', 'src')) ?? '', /^data:image\/jpeg;base64,\/9j\//);
      // A change on the page is a new frame.
      const before = (await live())?.frames ?? 0;
      await page.evaluate(`document.body.style.background = '#c00'`);
      await until('a new frame follows the change', async () => ((await live())?.frames ?? 0) > before);
      await browser.close();
      await until('the live view says the session ended', async () => (await live())?.status === 'ended');
      await until('the session is recorded to its end', async () => (await read()).status === 'ended');

      // The replay: the page's requests in the timeline, and the screencast beside the player.
      await watch.goto(replayUrl as string);
      await until('the player is up', async () => (await watch.evaluate('window.wapReplay !== undefined')) === true);
      const requests = await watch.$$eval('#requests li', (items) => items.map((li) => li.textContent ?? ''));
      assert.ok(
        requests.some((text) => text.startsWith('GET 200 ') && text.endsWith('/rec/one')),
        requests.join('\n'),
      );
      await watch.click('#screen-toggle');
      await watch.evaluate('window.wapReplay.toEnd()');
      assert.match(String(await watch.evaluate('window.wapReplay.screen()')), /^data:image\/jpeg;base64,/);
    } finally {
      await browser.close().catch(() => undefined);
      await viewer.close();
    }
  });

  test("a session's network log: a header first, each request once, filters that narrow, bodies, follow", async () => {
    const { apiKey } = await workspace('free');
    const other = await workspace('free');
    const opened = await call<{ webSocketDebuggerUrl: string }>(
      fleet.gatewayUrl,
      'GET',
      '/connect/json/version?networkBodies=true',
      { key: apiKey },
    );
    const sessionId = /\/devtools\/browser\/([0-9a-f-]{36})/.exec(opened.body.webSocketDebuggerUrl)?.[1] as string;
    const browser = await chromium.connectOverCDP(opened.body.webSocketDebuggerUrl);
    const origin = new URL(siteUrl).origin;
    type Frame = { type: string; status?: string; request?: Record<string, unknown> & { url: string } };
    /** The frames of one read of the log; `until` stops reading a followed stream when it answers true. */
    const log = async (query = '', stop?: (frames: Frame[]) => boolean) => {
      const controller = new AbortController();
      const res = await fetch(`${fleet.gatewayUrl}/v1/sessions/${sessionId}/network${query}`, {
        headers: auth(apiKey),
        signal: controller.signal,
      });
      assert.equal(res.status, 200, query);
      assert.match(res.headers.get('content-type') ?? '', /^application\/x-ndjson/);
      const frames: Frame[] = [];
      let text = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          text += Buffer.from(chunk).toString('utf8');
          for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
            frames.push(JSON.parse(text.slice(0, nl)) as Frame);
            text = text.slice(nl + 1);
          }
          if (stop?.(frames)) {
            controller.abort();
            break;
          }
        }
      } catch (err) {
        if (!controller.signal.aborted) throw err;
      }
      return frames;
    };
    const requests = (frames: Frame[]) =>
      frames.filter((f) => f.type === 'request').map((f) => f.request as Frame['request'] & {});
    try {
      const context = browser.contexts()[0] ?? (await browser.newContext());
      await context.addCookies([{ name: 'sid', value: 'cookie-value-not-for-logs', url: origin }]);
      const page = await context.newPage();
      await page.goto(siteUrl);
      await page.evaluate(
        `Promise.all([fetch('/api.json').then((r) => r.json()), fetch('/missing').then((r) => r.status)])`,
      );
      await until('the three requests are stored', async () => requests(await log()).length >= 3);
      const all = await log();
      assert.equal(all[0]?.type, 'header', 'the header frame comes first');
      assert.equal(all[0]?.status, 'live');
      const rows = requests(all);
      for (const path of ['/form', '/api.json', '/missing'])
        assert.equal(rows.filter((r) => r.url === `${origin}${path}`).length, 1, `${path} appears once`);
      const doc = rows.find((r) => r.url === `${origin}/form`) as Record<string, unknown>;
      assert.equal(doc.method, 'GET');
      assert.equal(doc.status, 200);
      assert.equal(doc.type, 'Document');
      assert.equal(doc.remoteAddress, `127.0.0.1:${new URL(siteUrl).port}`);
      assert.ok((doc.responseBytes as number) > 0 && (doc.durationMs as number) >= 0);
      assert.ok(!('body' in doc), 'no bodies unless asked');
      // Headers, protocol, initiator and timing; credentials redacted.
      const api = rows.find((r) => r.url === `${origin}/api.json`) as unknown as {
        requestHeaders: Record<string, string>;
        responseHeaders: Record<string, string>;
        initiator: { type: string; url: string | null };
        timing: Record<string, number | null>;
      };
      assert.equal(doc.protocol, 'http/1.1');
      assert.equal((doc.initiator as { type: string }).type, 'other', 'a CDP navigation');
      assert.equal(api.initiator.type, 'script', 'fetch() from a script');
      assert.match(api.responseHeaders['content-type'] ?? '', /json/);
      assert.match(api.requestHeaders['user-agent'] ?? '', /Chrome\//);
      assert.equal(api.requestHeaders.cookie, '[redacted]');
      assert.ok(!JSON.stringify(all).includes('cookie-value-not-for-logs'), 'no cookie value in the log');
      assert.ok(typeof api.timing.waitMs === 'number' && api.timing.waitMs >= 0, JSON.stringify(api.timing));
      // Each filter narrows.
      const urls = async (query: string) => requests(await log(query)).map((r) => new URL(r.url).pathname);
      assert.deepEqual(await urls('?status=404'), ['/missing']);
      assert.deepEqual(await urls('?status=4xx'), ['/missing']);
      assert.deepEqual(await urls('?url=api.json'), ['/api.json']);
      assert.deepEqual(await urls('?type=Document'), ['/form']);
      assert.deepEqual((await urls('?method=POST')).length, 0);
      const tab = rows[0]?.tab as number;
      assert.ok(
        rows.every((r) => r.tab === tab),
        'one page, one tab',
      );
      assert.deepEqual((await urls(`?tab=${tab}`)).length, rows.length);
      assert.deepEqual((await urls(`?tab=${tab + 1}`)).length, 0);
      assert.ok((await urls('?minDurationMs=3600000')).length === 0);
      const withBodies = requests(await log('?bodies=true&url=api.json'));
      assert.equal(withBodies[0]?.body, '{"answer":42}');
      const bad = await call(fleet.gatewayUrl, 'GET', `/v1/sessions/${sessionId}/network?status=42x`, { key: apiKey });
      assert.equal(bad.status, 400);
      // Follow: the stream stays open and a new request arrives on it.
      const followed = log('?follow=true&url=late', (frames) => requests(frames).length > 0);
      await page.evaluate(`fetch('/late?x=1').then((r) => r.status)`);
      assert.deepEqual(
        requests(await followed).map((r) => new URL(r.url).pathname),
        ['/late'],
      );
    } finally {
      await browser.close();
    }
    const elsewhere = await call(fleet.gatewayUrl, 'GET', `/v1/sessions/${sessionId}/network`, { key: other.apiKey });
    assert.equal(elsewhere.status, 404);
    assert.deepEqual(Object.keys((elsewhere.body as { details?: object }).details ?? {}), []);
  });

  test('a deleted session is gone with its bytes: reads, replay link and export answer 404; a running one is refused', async () => {
    const { apiKey } = await workspace('free');
    const other = await workspace('free');
    const opened = await call<{ webSocketDebuggerUrl: string }>(fleet.gatewayUrl, 'GET', '/connect/json/version', {
      key: apiKey,
    });
    const sessionId = /\/devtools\/browser\/([0-9a-f-]{36})/.exec(opened.body.webSocketDebuggerUrl)?.[1] as string;
    type SessionJson = { status: string; replayUrl: string | null; recording: { chunks: number } | null };
    const read = () =>
      call<{ session: SessionJson }>(fleet.gatewayUrl, 'GET', `/v1/sessions/${sessionId}`, { key: apiKey });
    const remove = (key = apiKey) =>
      call<{ deleted: { chunks: number; bytes: number; networkRequests: number }; code?: string }>(
        fleet.gatewayUrl,
        'DELETE',
        `/v1/sessions/${sessionId}`,
        { key },
      );
    const browser = await chromium.connectOverCDP(opened.body.webSocketDebuggerUrl);
    try {
      const page = await (browser.contexts()[0] ?? (await browser.newContext())).newPage();
      await page.goto(siteUrl);
      await until('the page is recorded', async () => ((await read()).body.session?.recording?.chunks ?? 0) > 0);
      const running = await remove();
      assert.deepEqual([running.status, running.body.code], [400, 'bad_request'], 'a running session is refused');
    } finally {
      await browser.close();
    }
    await until('the session has ended', async () => (await read()).body.session?.status === 'ended');
    await until('its network log is stored', async () => {
      const res = await fetch(`${fleet.gatewayUrl}/v1/sessions/${sessionId}/network`, { headers: auth(apiKey) });
      return (await res.text()).includes('"type":"request"');
    });
    const events = ((await read()).body.session.replayUrl as string).replace(
      /\/replay\/([^/?]+)\?/,
      '/replay/$1/events?',
    );
    assert.equal((await fetch(events)).status, 200, 'the replay link opens the recording');
    assert.equal((await remove(other.apiKey)).status, 404, "another workspace's delete is not_found");
    const gone = await remove();
    assert.equal(gone.status, 200, JSON.stringify(gone.body));
    const { deleted } = gone.body;
    assert.ok(deleted.chunks > 0 && deleted.bytes > 0 && deleted.networkRequests > 0, JSON.stringify(deleted));
    for (const [method, path] of [
      ['GET', `/v1/sessions/${sessionId}`],
      ['POST', `/v1/sessions/${sessionId}/verify`],
      ['POST', `/v1/sessions/${sessionId}/export`],
      ['GET', `/v1/sessions/${sessionId}/network`],
      ['DELETE', `/v1/sessions/${sessionId}`],
    ] as const) {
      const res = await call<{ code?: string }>(fleet.gatewayUrl, method, path, { key: apiKey });
      assert.deepEqual([res.status, res.body.code], [404, 'not_found'], `${method} ${path}`);
    }
    assert.equal((await fetch(events)).status, 404, 'the replay link opens nothing');
    const listed = await call<{ sessions: { id: string }[] }>(fleet.gatewayUrl, 'GET', '/v1/sessions', { key: apiKey });
    assert.deepEqual(listed.body.sessions, []);
  });
});
