import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { quietLog, until } from '@wap/testkit';
import pg from 'pg';
import { type ApiKeyRow, IdentityStore } from '../oauth/identity.js';
import { freshDatabase, type TestDatabase } from '../test-support.js';
import { ApiKeyCache, changeAndAwaitGateways, keyChange, LISTENER_NAME } from './api-key-cache.js';
import type { GatewayDatabase } from './database.js';

let database: TestDatabase;
let db: GatewayDatabase;
/** Reads the database on every call, as the admin command does. */
let direct: IdentityStore;
const log = quietLog('gateway-test');

before(async () => {
  database = await freshDatabase();
  db = database.db;
  direct = new IdentityStore(db);
});

after(async () => {
  await database.close();
});

/** A listening cache whose loads are counted. */
async function listeningCache() {
  const cache = new ApiKeyCache<ApiKeyRow>(database.url, log, { retryMs: 50 });
  cache.start();
  await cache.whenListening();
  const counted = { loads: 0 };
  const get = (keyId: string) =>
    cache.get(keyId, (id) => {
      counted.loads++;
      return direct.apiKey(id);
    });
  return { cache, get, counted };
}

async function workspaceWithKey(plan: 'free' | 'pro' = 'free') {
  const ws = await direct.createWorkspace(`ws-${Math.random()}`, plan);
  const key = await direct.createApiKey(ws.id, 'test');
  return { workspaceId: ws.id, keyId: key.keyId };
}

test('a key is read once, then from memory; a revocation returns only once the gateway dropped it', async () => {
  const { cache, get, counted } = await listeningCache();
  try {
    const { keyId } = await workspaceWithKey();
    assert.equal((await get(keyId))?.revoked, false);
    assert.equal((await get(keyId))?.revoked, false);
    assert.equal(counted.loads, 1, 'the second lookup is served from memory');

    const outcome = await direct.revokeApiKey(keyId);
    assert.deepEqual(outcome, { revoked: true, gateways: 1, acknowledged: 1 });
    // No wait: the acknowledgement means the entry is already gone.
    assert.equal((await get(keyId))?.revoked, true);
    assert.equal(counted.loads, 2);
    assert.deepEqual(await direct.revokeApiKey(keyId), { revoked: false, gateways: 1, acknowledged: 0 });
  } finally {
    await cache.stop();
  }
});

test("a plan change drops every cached key of that workspace and no other's", async () => {
  const { cache, get, counted } = await listeningCache();
  try {
    const a = await workspaceWithKey('free');
    const second = await direct.createApiKey(a.workspaceId, 'second');
    const other = await workspaceWithKey('free');
    for (const id of [a.keyId, second.keyId, other.keyId]) await get(id);
    assert.equal(counted.loads, 3);

    await direct.setPlan(a.workspaceId, 'pro');
    assert.equal((await get(a.keyId))?.plan, 'pro');
    assert.equal((await get(second.keyId))?.plan, 'pro');
    assert.equal((await get(other.keyId))?.plan, 'free');
    assert.equal(counted.loads, 5, "the other workspace's key stayed cached");

    // No such workspace: nothing changed, nothing announced, so no wait for acknowledgements.
    const started = performance.now();
    await assert.rejects(direct.setPlan('00000000-0000-4000-8000-000000000000', 'pro'));
    // A bound, not a speed: had it waited for acknowledgements, it would have waited the whole 2 s.
    assert.ok(performance.now() - started < 2_000, 'refused at once, not after the 2 s wait');
  } finally {
    await cache.stop();
  }
});

test('a row loaded while a change was announced is not kept', async () => {
  const { cache } = await listeningCache();
  try {
    const { keyId } = await workspaceWithKey();
    let loads = 0;
    // The load reads the live row, then the key is revoked before the load returns.
    const stale = await cache.get(keyId, async (id) => {
      loads++;
      const row = await direct.apiKey(id);
      await direct.revokeApiKey(id);
      return row;
    });
    assert.equal(stale?.revoked, false);
    const next = await cache.get(keyId, (id) => {
      loads++;
      return direct.apiKey(id);
    });
    assert.equal(next?.revoked, true, 'the stale row was not cached');
    assert.equal(loads, 2);
  } finally {
    await cache.stop();
  }
});

test('without its listening connection the cache reads the database, and caches again once back', async () => {
  const { cache, get, counted } = await listeningCache();
  try {
    const { keyId } = await workspaceWithKey();
    await get(keyId);
    assert.equal(cache.size, 1);
    await db.pool.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
      [LISTENER_NAME],
    );
    while (cache.isListening) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(cache.size, 0, 'forgotten when the connection was lost');
    const before = counted.loads;
    await get(keyId);
    await get(keyId);
    // Unless it already listens again (50 ms later), both lookups read the database.
    if (!cache.isListening) assert.equal(counted.loads, before + 2);
    await cache.whenListening();
    await get(keyId);
    const cachedAt = counted.loads;
    await get(keyId);
    assert.equal(counted.loads, cachedAt, 'cached again once listening');
  } finally {
    await cache.stop();
  }
});

test('a listening connection that stops answering without a word ends the listening', async () => {
  const cache = new ApiKeyCache<ApiKeyRow>(database.url, log, { retryMs: 50, checkMs: 150 });
  cache.start();
  await cache.whenListening();
  const [listener] = await db.pool
    .query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
      [LISTENER_NAME],
    )
    .then((r) => r.rows);
  assert.ok(listener, 'the listening connection is named once it listens');
  // Frozen: the connection stays open, nothing is said, no notification would arrive.
  process.kill(listener.pid, 'SIGSTOP');
  try {
    // No answer to the check: the cache stops trusting it, and listens again on a connection of its own.
    await until('a new listening connection beside the frozen one', async () => {
      const { rows } = await db.pool.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
        [LISTENER_NAME],
      );
      return rows.some((r) => r.pid !== listener.pid);
    });
  } finally {
    process.kill(listener.pid, 'SIGCONT');
  }
  await cache.whenListening();
  await cache.stop();
});

test('a change waits for a gateway that does not acknowledge only until its timeout', async () => {
  // Listens under the gateways' name but never answers: a wedged gateway.
  const silent = new pg.Client({ connectionString: database.url, application_name: LISTENER_NAME });
  await silent.connect();
  try {
    await silent.query('LISTEN identity_changed');
    const started = performance.now();
    const outcome = await changeAndAwaitGateways(db.pool, keyChange('k1'), async () => true, 300);
    const waited = performance.now() - started;
    assert.deepEqual(outcome, { changed: true, gateways: 1, acknowledged: 0 });
    // At least its timeout, and not the 5 s the next call is given: the 300 ms timeout is what ended it.
    assert.ok(waited >= 290 && waited < 5_000, `waited ${waited} ms`);
    // Nothing changed, nothing announced: no wait at all.
    const quick = performance.now();
    assert.equal((await changeAndAwaitGateways(db.pool, keyChange('k2'), async () => false, 5_000)).changed, false);
    assert.ok(performance.now() - quick < 5_000, 'returned before the 5 s timeout: it did not wait');
  } finally {
    await silent.end();
  }
});

test('with no gateway listening, a revocation returns at once', async () => {
  const { keyId } = await workspaceWithKey();
  assert.deepEqual(await direct.revokeApiKey(keyId), { revoked: true, gateways: 0, acknowledged: 0 });
});
