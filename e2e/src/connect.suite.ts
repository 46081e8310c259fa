// GET /connect through the real fleet: unmodified Playwright and Puppeteer
// drive a browser-host Chromium with an API key, both URL forms; tickets,
// slots, what a session may reach and who sees its slots behave as
// docs/connect.md says. What fails around a session is connect-faults.test.ts;
// what a session leaves on record, sessions.suite.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { call, upgrade } from './api.js';
import { auth, type ConnectSite, startConnectSite, workspaces } from './connect-fixtures.js';
import { fleet, sharedFleet } from './shared-fleet.js';

let site: ConnectSite;
let siteUrl: string;

const wsBase = () => fleet.gatewayUrl.replace(/^http/, 'ws');
const { workspace, assertNoKeyLogged } = workspaces(() => fleet);

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
  before(async () => {
    site = await startConnectSite();
    siteUrl = site.url;
    await sharedFleet('browsers');
  });

  after(() => site?.server.close());

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

  test('no API key, nor its secret, appears in any log line of the fleet', () => assertNoKeyLogged());
});
