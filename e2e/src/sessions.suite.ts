// The sessions GET /connect opens, on record through /v1/sessions and the
// real fleet (docs/sessions.md): listed, read and followed live in their
// workspace only; billed by the second; recorded with the password masked and
// the chain intact, replayed and exported; watched live; their network log;
// deleted with their bytes.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { until } from '@wap/testkit';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { call } from './api.js';
import { auth, type ConnectSite, startConnectSite, workspaces } from './connect-fixtures.js';
import { fleet, sharedFleet } from './shared-fleet.js';

let site: ConnectSite;
let siteUrl: string;

const { workspace, assertNoKeyLogged } = workspaces(() => fleet);

describe('sessions on record', () => {
  before(async () => {
    site = await startConnectSite();
    siteUrl = site.url;
    await sharedFleet('browsers');
  });

  after(() => site?.server.close());

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

  test('no API key, nor its secret, appears in any log line of the fleet', () => assertNoKeyLogged());
});
