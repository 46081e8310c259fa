// Profiles through the real fleet (docs/profiles.md): a login kept across
// sessions on another browser-host replica, one live session per profile and
// a lease that a host killed with -9 gives up, exits that stamp the traffic
// they carry (two loopback proxies: A residential, B datacenter), proxy_bytes
// billed for A only, and deletion.
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Fleet } from '@wap/fleet';
import { freePort, startFleet, until } from '@wap/testkit';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { call } from './api.js';

let fleet: Fleet;
let site: Server;
let origin: string;
/** Every request the site received: its path and the exit that stamped it ('' when none did). */
const seen: { path: string; exit: string }[] = [];

const MiB = 1024 * 1024;
const DOWNLOAD = Buffer.alloc(5 * MiB, 'x');

/** An exit: a plain HTTP forward proxy on loopback that stamps what it carries and counts it. */
function exitProxy(name: string) {
  const server = createServer((req, res) => {
    const target = new URL(req.url ?? '/');
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, 'x-exit': name };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers,
      },
      (answer: IncomingMessage) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  // The test site is plain HTTP; a tunnel asked of this exit is refused.
  server.on('connect', (_req, socket) => socket.end('HTTP/1.1 403 Forbidden\r\n\r\n'));
  return server;
}

let exitA: Server;
let exitB: Server;
let portA: number;

before(async () => {
  site = createServer((req, res) => {
    seen.push({ path: req.url ?? '', exit: String(req.headers['x-exit'] ?? '') });
    if (req.url === '/login') {
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'sid=ada; Max-Age=86400; Path=/' });
      return void res.end(`<!doctype html><script>
        localStorage.setItem('user', 'ada');
        const open = indexedDB.open('app', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('kv');
        open.onsuccess = () => { const tx = open.result.transaction('kv', 'readwrite'); tx.objectStore('kv').put('cart of ada', 'cart'); tx.oncomplete = () => { document.title = 'stored'; }; };
      </script>`);
    }
    if (req.url === '/download')
      return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(DOWNLOAD);
    if (req.url === '/upload') {
      let n = 0;
      req.on('data', (c: Buffer) => {
        n += c.length;
      });
      return void req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(String(n)));
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>home</title><p>home</p>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  exitA = exitProxy('A');
  exitB = exitProxy('B');
  portA = await freePort();
  const portB = await freePort();
  await new Promise<void>((r) => exitA.listen(portA, '127.0.0.1', r));
  await new Promise<void>((r) => exitB.listen(portB, '127.0.0.1', r));
  const exits = [
    // A comes out in Germany: its sessions' pages see German time and language (docs/profiles.md, Exits).
    { id: 'a', kind: 'residential', region: 'eu', url: `http://127.0.0.1:${portA}`, country: 'DE' },
    { id: 'b', kind: 'datacenter', region: 'us', url: `http://127.0.0.1:${portB}` },
  ];
  fleet = await startFleet({
    env: {
      EGRESS_ALLOW: '127.0.0.0/8',
      SESSION_WARM: '0',
      SESSION_CAPACITY: '16',
      PROFILE_LEASE_TTL: '6s',
      EXITS: JSON.stringify(exits),
    },
  });
});

after(async () => {
  await fleet?.stop();
  await fleet?.dropDatabases();
  for (const s of [site, exitA, exitB]) s?.close();
});

interface ProfileJson {
  id: string;
  label: string;
  exit: { id: string; kind: string; region: string | null };
  storageBytes: number;
  inUse: boolean;
  lastUsedAt: string | null;
}

const createProfile = async (apiKey: string, body: Record<string, unknown>) => {
  const created = await call<{ profile: ProfileJson }>(fleet.gatewayUrl, 'POST', '/v1/profiles', { key: apiKey, body });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return created.body.profile;
};
const readProfile = (apiKey: string, id: string) =>
  call<{ profile: ProfileJson; code?: string }>(fleet.gatewayUrl, 'GET', `/v1/profiles/${id}`, { key: apiKey });
/** Opens a session (with the profile, when given, and `options`); the answer as the gateway gave it. */
const open = (apiKey: string, profile?: string, options: Record<string, string> = {}) =>
  call<{ webSocketDebuggerUrl: string; code?: string }>(
    fleet.gatewayUrl,
    'GET',
    `/connect/json/version?${new URLSearchParams({ ...(profile && { profile }), ...options })}`,
    { key: apiKey },
  );
/** Waits until no session holds the profile (its last one saved and let go). */
const free = (apiKey: string, id: string) =>
  until('the profile is saved and free', async () => (await readProfile(apiKey, id)).body.profile?.inUse === false);

/** What a page of the site sees of the login in a session of `apiKey` (with the profile, when given). */
async function session<T>(
  apiKey: string,
  profile: string | undefined,
  drive: (page: import('playwright-core').Page) => Promise<T>,
  options: Record<string, string> = {},
) {
  const opened = await open(apiKey, profile, options);
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  const browser = await chromium.connectOverCDP(opened.body.webSocketDebuggerUrl);
  try {
    const context = browser.contexts()[0] ?? (await browser.newContext());
    return { result: await drive(await context.newPage()), port: new URL(opened.body.webSocketDebuggerUrl).port };
  } finally {
    await browser.close();
  }
}

const login = async (page: import('playwright-core').Page) => {
  await page.goto(`${origin}/login`);
  await until('the login is stored in the page', async () => (await page.title()) === 'stored');
};
const loginSeen = async (page: import('playwright-core').Page) => {
  await page.goto(`${origin}/home`);
  return page.evaluate(`(async () => {
    const db = await new Promise((resolve) => {
      const open = indexedDB.open('app', 1);
      open.onupgradeneeded = () => open.result.createObjectStore('kv');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => resolve(null);
    });
    const cart = await new Promise((resolve) => {
      if (!db) return resolve(null);
      const get = db.transaction('kv').objectStore('kv').get('cart');
      get.onsuccess = () => resolve(get.result ?? null);
      get.onerror = () => resolve(null);
    });
    return { cookie: document.cookie, user: localStorage.getItem('user'), cart };
  })()`);
};
const LOGGED_IN = { cookie: 'sid=ada', user: 'ada', cart: 'cart of ada' };

describe('profiles', () => {
  test('a login is kept across sessions, on another browser-host replica; a session without the profile sees none of it', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const profile = await createProfile(apiKey, { label: 'shop-1' });
    assert.deepEqual(profile.exit, { id: 'direct', kind: 'direct', region: null });
    const replicaPort = String(await freePort());
    const replica = await fleet.replica('browser-host', 'browser-host-2', { CDP_PORT: replicaPort });
    let stoppedMain = false;
    try {
      await until('two hosts take sessions', async () => {
        const ports = new Set<string>();
        for (let i = 0; i < 4; i++) {
          const opened = await open(apiKey);
          ports.add(new URL(opened.body.webSocketDebuggerUrl).port);
          const b = await chromium.connectOverCDP(opened.body.webSocketDebuggerUrl);
          await b.close();
        }
        return ports.size === 2;
      });
      const first = await session(apiKey, profile.id, async (page) => {
        await login(page);
        return loginSeen(page);
      });
      assert.deepEqual(first.result, LOGGED_IN);
      await free(apiKey, profile.id);
      const stored = (await readProfile(apiKey, profile.id)).body.profile;
      assert.ok(stored.storageBytes > 0 && stored.lastUsedAt, JSON.stringify(stored));
      // The host that ran it goes away: the next session lands on the other replica.
      if (first.port === replicaPort) await replica.stop();
      else {
        await fleet.stopOne('browser-host');
        stoppedMain = true;
      }
      const second = await session(apiKey, profile.id, loginSeen);
      assert.notEqual(second.port, first.port, 'another replica');
      assert.deepEqual(second.result, LOGGED_IN, 'still logged in');
      await free(apiKey, profile.id);
      assert.deepEqual((await session(apiKey, undefined, loginSeen)).result, { cookie: '', user: null, cart: null });
    } finally {
      await replica.stop();
      if (stoppedMain) {
        fleet.startOne('browser-host');
        await fleet.waitReady(60_000);
      }
    }
  });

  test('one live session per profile; a host killed with -9 lets it go within the lease, with its last saved state', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const profile = await createProfile(apiKey, { label: 'kill-9' });
    await session(apiKey, profile.id, login);
    await free(apiKey, profile.id);
    const opened = await open(apiKey, profile.id);
    assert.equal(opened.status, 200);
    const browser = await chromium.connectOverCDP(opened.body.webSocketDebuggerUrl);
    const again = await open(apiKey, profile.id);
    assert.deepEqual([again.status, again.body.code], [409, 'profile_in_use']);
    assert.equal((await readProfile(apiKey, profile.id)).body.profile.inUse, true);
    // The host dies holding it (and with it, anything this session did but never saved).
    const page = await browser.contexts()[0]?.newPage();
    await page?.goto(`${origin}/home`);
    await page?.evaluate("localStorage.setItem('user', 'not saved')");
    await fleet.stopOne('browser-host', 'SIGKILL');
    const killedAt = Date.now();
    await browser.close().catch(() => undefined);
    // Nobody renews the lease now: it lapses within the TTL (6 s here) of the last heartbeat (every 2 s).
    const hostDb = new pg.Client({ connectionString: fleet.databaseUrl('browser-host') });
    await hostDb.connect();
    try {
      const { rows } = await hostDb.query<{ expires: Date }>(
        'SELECT lease_expires_at AS expires FROM profiles WHERE id = $1',
        [profile.id],
      );
      const lapsesIn = (rows[0]?.expires.getTime() ?? 0) - killedAt;
      assert.ok(lapsesIn <= 6_000 && lapsesIn > 0, `the lease lapses ${lapsesIn} ms after the kill`);
    } finally {
      await hostDb.end();
    }
    fleet.startOne('browser-host');
    await fleet.waitReady(60_000);
    let attached: { result: unknown } | undefined;
    await until(
      'the profile can be attached again',
      async () => {
        const probe = await open(apiKey, profile.id);
        if (probe.status !== 200) return false;
        const b = await chromium.connectOverCDP(probe.body.webSocketDebuggerUrl);
        try {
          const p = await (b.contexts()[0] ?? (await b.newContext())).newPage();
          attached = { result: await loginSeen(p) };
        } finally {
          await b.close();
        }
        return true;
      },
      60_000,
    );
    assert.deepEqual(attached?.result, LOGGED_IN, 'the last saved state, not what the killed session did');
  });

  test('a session through an exit in Germany sees German time and language, unless it asks for its own', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const profile = await createProfile(apiKey, { label: 'berlin', exit: { id: 'a' } });
    const place = async (page: import('playwright-core').Page) => {
      await page.goto(`${origin}/home`);
      return page.evaluate(
        '[Intl.DateTimeFormat().resolvedOptions().timeZone, navigator.language, Intl.NumberFormat().resolvedOptions().locale]',
      );
    };
    // Intl's default locale is Chromium's UI language, `de` as a German Chrome's is.
    assert.deepEqual((await session(apiKey, profile.id, place)).result, ['Europe/Berlin', 'de-DE', 'de']);
    await free(apiKey, profile.id);
    const tokyo = await session(apiKey, profile.id, place, { timezone: 'Asia/Tokyo', locale: 'ja-JP' });
    assert.deepEqual(tokyo.result, ['Asia/Tokyo', 'ja-JP', 'ja'], 'what the session asks wins');
    await free(apiKey, profile.id);
    const direct = await session(apiKey, undefined, place);
    assert.deepEqual(direct.result, ['UTC', 'en-US', 'en-US'], 'no exit, no EGRESS_PLACE: as before');
  });

  test('a profile pinned to exit A is only ever seen through A and bills its bytes; B bills none; A down is exit_unavailable', async () => {
    const viaA = await fleet.workspace('pro');
    const viaB = await fleet.workspace('pro');
    const a = await createProfile(viaA.apiKey, { label: 'via-a', exit: { region: 'eu' } });
    assert.deepEqual(a.exit, { id: 'a', kind: 'residential', region: 'eu' });
    const b = await createProfile(viaB.apiKey, { label: 'via-b', exit: { id: 'b' } });
    assert.deepEqual(b.exit, { id: 'b', kind: 'datacenter', region: 'us' });
    const none = await call<{ code: string }>(fleet.gatewayUrl, 'POST', '/v1/profiles', {
      key: viaA.apiKey,
      body: { label: 'nowhere', exit: { region: 'mars' } },
    });
    assert.deepEqual([none.status, none.body.code], [400, 'bad_request'], 'an exit no configuration names');
    const transfer = async (page: import('playwright-core').Page) => {
      await page.goto(`${origin}/home`);
      return page.evaluate(`(async () => {
        const down = (await (await fetch('/download')).arrayBuffer()).byteLength;
        const up = await (await fetch('/upload', { method: 'POST', body: new Uint8Array(${MiB}) })).text();
        return { down, up: Number(up) };
      })()`);
    };
    const from = seen.length;
    const throughA = await session(viaA.apiKey, a.id, transfer);
    assert.deepEqual(throughA.result, { down: 5 * MiB, up: MiB });
    const requestsA = seen.slice(from);
    assert.ok(requestsA.length >= 3);
    assert.ok(
      requestsA.every((r) => r.exit === 'A'),
      `every request came through A: ${JSON.stringify(requestsA)}`,
    );
    const fromB = seen.length;
    await session(viaB.apiKey, b.id, transfer);
    assert.ok(seen.slice(fromB).every((r) => r.exit === 'B'));
    // What the ledger billed: proxy_bytes for A, within 5% of the payload, at 2000 credits per GB, rounded up once.
    type Usage = { byCapability: { capability: string; meters: Record<string, number>; credits: number }[] };
    const connectUsage = async (apiKey: string) =>
      (await call<Usage>(fleet.gatewayUrl, 'GET', '/v1/usage', { key: apiKey })).body.byCapability?.find(
        (c) => c.capability === 'connect',
      );
    await until(
      'the session through A is billed',
      async () => ((await connectUsage(viaA.apiKey))?.meters.proxy_bytes ?? 0) > 0,
    );
    const billedA = (await connectUsage(viaA.apiKey)) as NonNullable<Awaited<ReturnType<typeof connectUsage>>>;
    const bytes = billedA.meters.proxy_bytes as number;
    assert.ok(Math.abs(bytes - 6 * MiB) / (6 * MiB) < 0.05, `relayed ${bytes} bytes for a 6 MiB payload`);
    const seconds = billedA.meters.context_seconds as number;
    const mc = Math.ceil((seconds * 1000) / 60) + Math.ceil((bytes * 2000 * 1000) / 1e9);
    assert.equal(Math.round(billedA.credits * 1000), mc, JSON.stringify(billedA));
    await until(
      'the session through B is billed',
      async () => ((await connectUsage(viaB.apiKey))?.meters.context_seconds ?? 0) > 0,
    );
    assert.equal((await connectUsage(viaB.apiKey))?.meters.proxy_bytes ?? 0, 0, 'a datacenter exit bills no bytes');
    // A stops mid-session: the session's requests fail; none goes direct.
    await free(viaA.apiKey, a.id);
    const cut = await session(viaA.apiKey, a.id, async (page) => {
      await page.goto(`${origin}/home?before-the-cut`);
      await new Promise<void>((r) => {
        exitA.close(() => r());
        exitA.closeAllConnections();
      });
      return page.evaluate(`fetch('/home?after-the-cut').then((r) => r.status, () => 'failed')`);
    });
    assert.notEqual(cut.result, 200, 'a request with the exit down does not get through');
    assert.deepEqual(
      seen.filter((r) => r.path.includes('-the-cut')),
      [{ path: '/home?before-the-cut', exit: 'A' }],
      'the site never saw the request made while the exit was down',
    );
    // A session with the profile is refused while A is down.
    await free(viaA.apiKey, a.id);
    const refused = await open(viaA.apiKey, a.id);
    assert.deepEqual([refused.status, refused.body.code], [503, 'exit_unavailable']);
    assert.equal(
      (await readProfile(viaA.apiKey, a.id)).body.profile.inUse,
      false,
      'the refused attach let the lease go',
    );
    exitA = exitProxy('A');
    await new Promise<void>((r) => exitA.listen(portA, '127.0.0.1', r));
  });

  test('profiles list by label glob; delete takes the stored state; another workspace sees none', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const other = await fleet.workspace('pro');
    const made: Record<string, string> = {};
    for (const label of ['team_a-1', 'team_a-2', 'teamXa-3', '50%-off'])
      made[label] = (await createProfile(apiKey, { label })).id;
    const labels = async (glob: string) =>
      (
        await call<{ profiles: ProfileJson[] }>(
          fleet.gatewayUrl,
          'GET',
          `/v1/profiles?label=${encodeURIComponent(glob)}`,
          {
            key: apiKey,
          },
        )
      ).body.profiles
        .map((p) => p.label)
        .sort();
    assert.deepEqual(await labels('team_a-*'), ['team_a-1', 'team_a-2'], '`_` is literal');
    assert.deepEqual(await labels('team?a-?'), ['teamXa-3', 'team_a-1', 'team_a-2']);
    assert.deepEqual(await labels('50%*'), ['50%-off']);
    assert.deepEqual(await labels('5%'), []);
    const id = made['team_a-1'] as string;
    await session(apiKey, id, login);
    await free(apiKey, id);
    assert.ok((await readProfile(apiKey, id)).body.profile.storageBytes > 0);
    const elsewhere = await readProfile(other.apiKey, id);
    assert.deepEqual([elsewhere.status, elsewhere.body.code], [404, 'profile_not_found']);
    const theirs = await call<{ code: string }>(fleet.gatewayUrl, 'DELETE', `/v1/profiles/${id}`, {
      key: other.apiKey,
    });
    assert.deepEqual([theirs.status, theirs.body.code], [404, 'profile_not_found']);
    const deleted = await call(fleet.gatewayUrl, 'DELETE', `/v1/profiles/${id}`, { key: apiKey });
    assert.equal(deleted.status, 200);
    const gone = await readProfile(apiKey, id);
    assert.deepEqual([gone.status, gone.body.code], [404, 'profile_not_found']);
    const attach = await open(apiKey, id);
    assert.deepEqual([attach.status, attach.body.code], [404, 'profile_not_found']);
    // No bytes left anywhere in the hosts' database.
    const db = new pg.Client({ connectionString: fleet.databaseUrl('browser-host') });
    await db.connect();
    try {
      const left = await db.query('SELECT count(*)::int AS n FROM profile_states WHERE profile_id = $1', [id]);
      assert.equal(left.rows[0].n, 0);
    } finally {
      await db.end();
    }
  });
});
