// Profiles against real Postgres and Debian's Chromium: a login (a cookie,
// localStorage and IndexedDB) saved from one session browser comes back in
// the next; states are sealed and saved atomically; leases hold one session
// at a time and lapse; labels filter by glob with SQL's own wildcards literal.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { isApiError } from '@wap/errors';
import { AllowList } from '@wap/netguard';
import { seal, unseal } from '@wap/sealed';
import { type FreshDatabase, quietLog } from '@wap/testkit';
import { browserFace } from '../domain/browser-face.js';
import { parseExits, pickExit } from '../domain/exits.js';
import { sessionSettings } from '../domain/session-options.js';
import { chromiumVersion, launchSessionBrowser } from '../sessions/session-browser.js';
import { type BrowserHostDatabase, openBrowserHostDatabase } from '../store/database.js';
import { ProfileStore } from '../store/profiles.js';
import { freshDatabase } from '../test-support.js';
import { keeps, pack, unpack } from './archive.js';
import { PROFILE_STATE, Profiles } from './profiles.js';

const KEY = 'the-profile-key-of-this-test-run-0123456789';
let database: FreshDatabase;
let db: BrowserHostDatabase;
let store: ProfileStore;
let site: Server;
let origin: string;

before(async () => {
  database = await freshDatabase();
  db = openBrowserHostDatabase(database.url);
  store = new ProfileStore(db);
  // A site that logs in: a cookie from the server, localStorage and IndexedDB from the page.
  site = createServer((req, res) => {
    if (req.url === '/login') {
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'sid=logged-in-as-ada; Max-Age=86400; Path=/' });
      res.end(`<!doctype html><script>
        localStorage.setItem('user', 'ada');
        const open = indexedDB.open('app', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('kv');
        open.onsuccess = () => { const tx = open.result.transaction('kv', 'readwrite'); tx.objectStore('kv').put('cart of ada', 'cart'); tx.oncomplete = () => { document.title = 'stored'; }; };
      </script>`);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<!doctype html><p id="cookie"></p><script>document.getElementById('cookie').textContent = document.cookie;</script>`,
    );
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
});
after(async () => {
  site?.close();
  await db?.$disconnect();
  await database?.drop();
});

const profiles = (exits = '[]', maxBytes = 50 * 1024 * 1024) =>
  new Profiles(store, { key: KEY, maxBytes, leaseTtlMs: 30_000, exits: parseExits(exits) }, quietLog());

const holder = () => ({ sessionId: randomUUID(), host: 'ws://127.0.0.1:9/' });

/** What a page of the site sees of a login, in a session browser attached to `attached` (or none). */
async function loginSeen(attached: Awaited<ReturnType<Profiles['attach']>> | undefined, login = false) {
  const face = browserFace(sessionSettings(undefined), chromiumVersion('/usr/bin/chromium'));
  const b = await launchSessionBrowser('/usr/bin/chromium', AllowList.parse('127.0.0.0/8'), face, {
    ...(attached && { profile: attached }),
  });
  try {
    const page = await b.browser.newPage();
    if (login) {
      await page.goto(`${origin}/login`);
      await page.waitForFunction(() => document.title === 'stored');
    }
    await page.goto(`${origin}/home`);
    return await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase | null>((resolve) => {
        const open = indexedDB.open('app', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('kv');
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => resolve(null);
      });
      const cart = await new Promise<unknown>((resolve) => {
        if (!db) return resolve(null);
        const get = db.transaction('kv').objectStore('kv').get('cart');
        get.onsuccess = () => resolve(get.result ?? null);
        get.onerror = () => resolve(null);
      });
      return { cookie: document.cookie, user: localStorage.getItem('user'), cart };
    });
  } finally {
    await b.close({ keepState: true });
  }
}

/** How many saved states the profile has rows for. */
const states = async (profileId: string) =>
  (
    await db.query<{ n: number }>`SELECT count(*)::int AS n FROM profile_states WHERE profile_id = ${profileId}::uuid`
  )[0]?.n;

test('a login saved from one session browser is there in the next; a browser without the profile sees none of it', async () => {
  const p = profiles();
  const workspaceId = `ws-${randomUUID()}`;
  const profile = await p.create(workspaceId, 'shop', undefined);
  assert.deepEqual([profile.exitId, profile.exitKind], ['direct', 'direct']);
  const first = await loginSeen(await p.attach(workspaceId, profile.id, holder()), true);
  assert.deepEqual(first, { cookie: 'sid=logged-in-as-ada', user: 'ada', cart: 'cart of ada' });
  const saved = await p.get(workspaceId, profile.id);
  assert.ok(saved.sizeBytes > 0n && saved.stateId, 'a state was saved');
  assert.equal(saved.leaseSession, null, 'and the lease let go');
  // The next session, with nothing done in it but reading.
  assert.deepEqual(await loginSeen(await p.attach(workspaceId, profile.id, holder())), first);
  assert.deepEqual(await loginSeen(undefined), { cookie: '', user: null, cart: null }, 'no profile, no login');
  // The stored bytes are sealed: not a zstd frame, and no cookie value in them.
  const stored = (await store.state(profile.id)) as Buffer;
  assert.notEqual(stored.subarray(0, 4).toString('hex'), '28b52ffd', 'not plain zstd');
  assert.ok(!stored.includes(Buffer.from('logged-in-as-ada')));
  // One state row per profile: the old one went with the save.
  assert.equal(await states(profile.id), 1);
});

test('one session at a time: a second attach is profile_in_use, a lapsed lease can be taken, a lost lease saves nothing', async () => {
  const p = profiles();
  const workspaceId = `ws-${randomUUID()}`;
  const profile = await p.create(workspaceId, 'one-at-a-time', undefined);
  const first = holder();
  const held = await p.attach(workspaceId, profile.id, first);
  await assert.rejects(
    p.attach(workspaceId, profile.id, holder()),
    (e) => isApiError(e) && e.code === 'profile_in_use',
  );
  await assert.rejects(p.delete(workspaceId, profile.id), (e) => isApiError(e) && e.code === 'profile_in_use');
  await assert.rejects(
    p.attach(`ws-${randomUUID()}`, profile.id, holder()),
    (e) => isApiError(e) && e.code === 'profile_not_found',
    "another workspace's profile does not exist for it",
  );
  // The holder's host dies: no renewal; once the lease lapses another session takes it.
  await db.execute`UPDATE profiles SET lease_expires_at = now() - interval '1 second' WHERE id = ${profile.id}::uuid`;
  const second = holder();
  const taken = await p.attach(workspaceId, profile.id, second);
  // The first session, back from the dead, cannot save over the second's.
  const dir = mkdtempSync(path.join(tmpdir(), 'wap-profile-test-'));
  try {
    await held.release(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const row = await p.get(workspaceId, profile.id);
  assert.deepEqual([row.leaseSession, row.stateId], [second.sessionId, null]);
  // Renewal moves the lease on; release frees it.
  await p.renew([second.sessionId]);
  const renewed = await p.get(workspaceId, profile.id);
  assert.ok((renewed.leaseExpiresAt?.getTime() ?? 0) > Date.now() + 20_000);
  await taken.release(undefined);
  await p.delete(workspaceId, profile.id);
  await assert.rejects(p.get(workspaceId, profile.id), (e) => isApiError(e) && e.code === 'profile_not_found');
  assert.equal(await states(profile.id), 0);
});

test('a state over the cap is not saved and the last good one stays; a changed or moved blob does not open', async () => {
  const workspaceId = `ws-${randomUUID()}`;
  const roomy = profiles();
  const profile = await roomy.create(workspaceId, 'capped', undefined);
  await loginSeen(await roomy.attach(workspaceId, profile.id, holder()), true);
  const good = await store.state(profile.id);
  assert.ok(good);
  const tight = profiles('[]', 1_048_576);
  const dir = mkdtempSync(path.join(tmpdir(), 'wap-profile-test-'));
  try {
    const { writeFileSync, mkdirSync } = await import('node:fs');
    mkdirSync(path.join(dir, 'Default'));
    // 2 MiB that do not compress.
    writeFileSync(
      path.join(dir, 'Default', 'big'),
      Buffer.from(Array.from({ length: 2 * 1024 * 1024 }, () => Math.floor(Math.random() * 256))),
    );
    await (await tight.attach(workspaceId, profile.id, holder())).release(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  assert.deepEqual(await store.state(profile.id), good, 'the last good state stays');
  assert.equal((await tight.get(workspaceId, profile.id)).leaseSession, null, 'the lease went anyway');
  const plain = Buffer.from('a state');
  const sealed = seal(KEY, PROFILE_STATE, profile.id, plain);
  assert.deepEqual(unseal(KEY, PROFILE_STATE, profile.id, sealed), plain);
  const changed = Buffer.from(sealed);
  changed[changed.length - 1] = (changed.at(-1) as number) ^ 1;
  assert.throws(() => unseal(KEY, PROFILE_STATE, profile.id, changed));
  assert.throws(() => unseal(KEY, PROFILE_STATE, randomUUID(), sealed), 'another profile cannot open it');
  assert.throws(() => unseal(`${KEY}-other`, PROFILE_STATE, profile.id, sealed), 'nor another key');
});

test('caches, locks and the recorder are left out of a state; extraction stays inside its directory', async () => {
  for (const p of ['./Default/Network/Cookies', './Default/Local Storage/leveldb/000003.log', './Default/IndexedDB'])
    assert.equal(keeps(p), true, p);
  for (const p of ['./SingletonLock', './Default/Cache/data_0', './Default/Code Cache/js', './wap-recorder/worker.js'])
    assert.equal(keeps(p), false, p);
  const from = mkdtempSync(path.join(tmpdir(), 'wap-profile-test-'));
  const to = mkdtempSync(path.join(tmpdir(), 'wap-profile-test-'));
  try {
    const { writeFileSync, mkdirSync } = await import('node:fs');
    mkdirSync(path.join(from, 'Default', 'Cache'), { recursive: true });
    writeFileSync(path.join(from, 'Default', 'Cookies'), 'c');
    writeFileSync(path.join(from, 'Default', 'Cache', 'x'), 'cache');
    await unpack(await pack(from), to);
    assert.deepEqual(readdirSync(path.join(to, 'Default')), ['Cookies']);
  } finally {
    await Promise.all([rm(from, { recursive: true, force: true }), rm(to, { recursive: true, force: true })]);
  }
});

test('labels filter by glob, `%` and `_` literal; pages follow the cursor', async () => {
  const p = profiles();
  const workspaceId = `ws-${randomUUID()}`;
  for (const label of ['shop-1', 'shop-22', 'shop_3', '100%', 'blog', 'shopX'])
    await p.create(workspaceId, label, undefined);
  const labels = async (labelGlob?: string) =>
    (await p.list({ workspaceId, ...(labelGlob !== undefined && { labelGlob }), limit: 50 }))
      .map((r) => r.label)
      .sort();
  assert.deepEqual(await labels('shop-*'), ['shop-1', 'shop-22']);
  assert.deepEqual(await labels('shop?'), ['shopX']);
  assert.deepEqual(await labels('shop_*'), ['shop_3'], '`_` is literal');
  assert.deepEqual(await labels('100%'), ['100%'], '`%` is literal');
  assert.deepEqual(await labels('1%'), []);
  assert.deepEqual(await labels('*'), ['100%', 'blog', 'shop-1', 'shop-22', 'shopX', 'shop_3'].sort());
  assert.equal((await labels()).length, 6);
  assert.deepEqual(await p.list({ workspaceId: `ws-${randomUUID()}`, limit: 50 }), [], 'one workspace only');
  const first = await p.list({ workspaceId, limit: 4 });
  assert.equal(first.length, 5, 'one more than the limit says more follow');
  const last = first[3] as (typeof first)[number];
  const rest = await p.list({ workspaceId, limit: 4, after: { createdAt: last.createdAt, id: last.id } });
  assert.deepEqual(
    [...first.slice(0, 4), ...rest].map((r) => r.id).sort(),
    (await p.list({ workspaceId, limit: 50 })).map((r) => r.id).sort(),
  );
});

test('an exit is pinned by id or region and kind; one that matches nothing is refused; one down is exit_unavailable', async () => {
  const exits = parseExits(
    JSON.stringify([
      { id: 'a', kind: 'residential', region: 'eu', url: 'http://user:pass@127.0.0.1:1' },
      { id: 'b', kind: 'datacenter', region: 'eu', url: 'socks5://127.0.0.1:2' },
    ]),
  );
  assert.deepEqual(pickExit(exits, { region: 'eu', kind: 'datacenter' }), {
    id: 'b',
    kind: 'datacenter',
    region: 'eu',
  });
  assert.deepEqual(pickExit(exits, { id: 'a' }), { id: 'a', kind: 'residential', region: 'eu' });
  assert.deepEqual(pickExit(exits, undefined), { id: 'direct', kind: 'direct', region: '' });
  assert.equal(pickExit(exits, { region: 'us' }), undefined);
  assert.throws(() => parseExits('[{"id":"direct","kind":"residential","region":"x","url":"http://h:1"}]'));
  assert.throws(() => parseExits('[{"id":"c","kind":"mobile","region":"x","url":"http://h:1"}]'));
  const p = profiles(JSON.stringify([{ id: 'gone', kind: 'residential', region: 'eu', url: 'http://127.0.0.1:9' }]));
  const workspaceId = `ws-${randomUUID()}`;
  await assert.rejects(p.create(workspaceId, 'x', { region: 'us' }), (e) => isApiError(e) && e.code === 'bad_request');
  const pinned = await p.create(workspaceId, 'via gone', { id: 'gone' });
  // Nothing listens on the exit's port: the attach fails, and lets the lease go.
  await assert.rejects(
    p.attach(workspaceId, pinned.id, holder()),
    (e) => isApiError(e) && e.code === 'exit_unavailable',
  );
  assert.equal((await p.get(workspaceId, pinned.id)).leaseSession, null);
});
