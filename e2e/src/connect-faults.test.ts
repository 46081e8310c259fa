// What fails around a session opened by GET /connect, through the real fleet:
// its Chromium or its client killed, 20 connects and closes, its browser-host
// killed or told to stop, a second host that comes and goes, its
// session-recorder killed. Each ends the session once, bills it once and
// gives its slot back (docs/connect.md). A fleet of its own: these kill and
// restart the fleet's services.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Fleet } from '@wap/fleet';
import { freePort, startFleet, until } from '@wap/testkit';
import pg from 'pg';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { call } from './api.js';
import { auth, type ConnectSite, startConnectSite, workspaces } from './connect-fixtures.js';
import { hostChromiums, sessionChromium } from './session-chromium.js';

let fleet: Fleet;
let site: ConnectSite;
let siteUrl: string;

before(async () => {
  site = await startConnectSite();
  siteUrl = site.url;
  // Room for the sessions tests leave waiting for their tickets (30 s each), so no test meets another's.
  fleet = await startFleet({ env: { EGRESS_ALLOW: '127.0.0.0/8', SESSION_WARM: '1', SESSION_CAPACITY: '32' } });
});

after(async () => {
  await fleet?.stop();
  await fleet?.dropDatabases();
  site?.server.close();
});

const wsBase = () => fleet.gatewayUrl.replace(/^http/, 'ws');
const { workspace, assertNoKeyLogged } = workspaces(() => fleet);

describe('a session whose browser, client, host or recorder fails', () => {
  test('a Chromium killed mid-session ends its session and frees its slot at once', async () => {
    const { apiKey, workspaceId } = await workspace('free');
    // A viewport no other session has: the test finds the first one's Chromium by it.
    const first = await puppeteer.connect({
      browserWSEndpoint: `${wsBase()}/connect?viewportWidth=1112`,
      headers: auth(apiKey),
    });
    const second = await puppeteer.connect({ browserWSEndpoint: `${wsBase()}/connect`, headers: auth(apiKey) });
    const pid = sessionChromium(1112);
    assert.ok(pid, 'the browser process');
    process.kill(pid, 'SIGKILL');
    try {
      await until("the first client's connection goes with its Chromium", async () => !first.connected);
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

  test("connects refused over the plan's limit spend no browser: the warm one waits for the next session", async () => {
    const { apiKey } = await workspace('free');
    const host = fleet.pid('browser-host') as number;
    const first = await puppeteer.connect({ browserWSEndpoint: `${wsBase()}/connect`, headers: auth(apiKey) });
    const second = await puppeteer.connect({ browserWSEndpoint: `${wsBase()}/connect`, headers: auth(apiKey) });
    try {
      // Two sessions' browsers and one warm.
      await until('the pool refilled', async () => hostChromiums(host).length === 3);
      const before = hostChromiums(host);
      // Each refused connect took the warm browser while the ledger answered, and gave it back.
      for (let i = 0; i < 5; i++) {
        const refused = await call(fleet.gatewayUrl, 'GET', '/connect/json/version', { key: apiKey });
        assert.equal(refused.status, 429);
      }
      await first.close();
      // The first session's browser goes; the warm one stays, and none was launched for the refused connects.
      await until('the first browser gone', async () => hostChromiums(host).length === 2);
      const after = hostChromiums(host);
      assert.equal(after.filter((pid) => before.includes(pid)).length, 2, "the second session's and the warm one");
    } finally {
      await second.close();
    }
  });

  test('a browser-host killed 65 s into a session: its bill is finished once, its slot comes back, its Chromium ends', async () => {
    const { apiKey, workspaceId } = await workspace('free');
    const browsers = [
      await puppeteer.connect({ browserWSEndpoint: `${wsBase()}/connect?viewportWidth=1113`, headers: auth(apiKey) }),
      await puppeteer.connect({ browserWSEndpoint: `${wsBase()}/connect`, headers: auth(apiKey) }),
    ];
    const pid = sessionChromium(1113) as number;
    assert.ok(pid, "the first session's Chromium");
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

  test('no API key, nor its secret, appears in any log line of the fleet', () => assertNoKeyLogged());
});
