// The console's sessions against a real database: the lifetimes (which the
// e2e test cannot wait for), the last-seen write, the membership they hang
// off, the last owner, and a key's last use that evicts nothing cached.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { quietLog, until } from '@wap/testkit';
import { type ApiKeyRow, IdentityStore } from '../oauth/identity.js';
import { freshDatabase, type TestDatabase } from '../test-support.js';
import { ApiKeyCache } from './api-key-cache.js';
import { CONSOLE_IDLE_MS, CONSOLE_LIFETIME_MS, CONSOLE_SEEN_EVERY_MS } from './console-sessions.js';
import { KeyUses } from './key-uses.js';

let database: TestDatabase;
let identity: IdentityStore;

before(async () => {
  database = await freshDatabase();
  identity = new IdentityStore(database.db);
});
after(async () => {
  await database.close();
});

async function member(role: 'owner' | 'member' = 'owner') {
  const ws = await identity.createWorkspace(`ws-${Math.random()}`, 'pro');
  const user = await identity.createUser(`u-${Math.random()}@example.test`);
  await identity.addMember(ws.id, user.email, role);
  return { workspaceId: ws.id, userId: user.id, email: user.email };
}

/** Moves a session's clocks back by `ms`, as if that much time had passed. */
const age = (token: string, column: 'created_at' | 'last_seen_at', ms: number) =>
  database.db.pool.query(
    `UPDATE console_sessions SET ${column} = ${column} - $2::float8 * interval '1 millisecond' WHERE token_hash = sha256(convert_to($1, 'UTF8'))`,
    [token, ms],
  );

test('a session lapses a day after it was last seen, and a month after it began whatever its use', async () => {
  const m = await member();
  const token = await identity.consoleSessions.create(m.userId, m.workspaceId);
  const found = await identity.consoleSessions.find(token);
  assert.equal(found?.workspaceId, m.workspaceId);
  assert.equal(found?.role, 'owner');
  assert.equal(await identity.consoleSessions.find(`${token.slice(0, -1)}x`), undefined);

  // Seen six minutes ago: the read moves last-seen to now, so the day starts again.
  await age(token, 'last_seen_at', CONSOLE_SEEN_EVERY_MS + 60_000);
  const slid = await identity.consoleSessions.find(token);
  assert.ok(slid && Date.now() - slid.lastSeenAt.getTime() < 30_000, 'last seen was written');
  // Seen a minute ago: nothing written.
  await age(token, 'last_seen_at', 60_000);
  const kept = await identity.consoleSessions.find(token);
  assert.ok(kept && Date.now() - kept.lastSeenAt.getTime() >= 60_000, 'no write within five minutes');

  await age(token, 'last_seen_at', CONSOLE_IDLE_MS);
  assert.equal(await identity.consoleSessions.find(token), undefined, 'idle for a day');

  const busy = await identity.consoleSessions.create(m.userId, m.workspaceId);
  await age(busy, 'created_at', CONSOLE_LIFETIME_MS + 1_000);
  assert.equal(await identity.consoleSessions.find(busy), undefined, 'a month old, though seen now');
});

test("a session goes with its membership; it moves only to the user's own workspaces", async () => {
  const m = await member('member');
  const token = await identity.consoleSessions.create(m.userId, m.workspaceId);
  const other = await identity.createWorkspace(`ws-${Math.random()}`);
  const session = await identity.consoleSessions.find(token);
  assert.ok(session);
  assert.equal(await identity.consoleSessions.moveTo(session.id, other.id), false);
  await identity.addMember(other.id, m.email);
  assert.equal(await identity.consoleSessions.moveTo(session.id, other.id), true);
  assert.equal((await identity.consoleSessions.find(token))?.workspaceId, other.id);

  await identity.removeMember(other.id, m.email);
  assert.equal(await identity.consoleSessions.find(token), undefined);
  await identity.addMember(other.id, m.email);
  assert.equal(await identity.consoleSessions.find(token), undefined, 'not revived by joining again');
});

test('the last owner can be neither removed nor made a member, even by two owners at once', async () => {
  const a = await member('owner');
  const b = await identity.createUser(`u-${Math.random()}@example.test`);
  await identity.addMember(a.workspaceId, b.email, 'owner');
  // Each owner removes the other at the same moment: one of them must stay.
  const outcomes = await Promise.all([
    identity.changeMember(a.workspaceId, a.userId, 'remove'),
    identity.changeMember(a.workspaceId, b.id, 'remove'),
  ]);
  assert.deepEqual(outcomes.map((o) => o.done).sort(), [false, true]);
  const [left] = await identity.listMembers(a.workspaceId);
  assert.ok(left);
  assert.deepEqual(await identity.changeMember(a.workspaceId, left.userId, { role: 'member' }), {
    done: false,
    reason: 'last_owner',
  });
  assert.deepEqual(await identity.changeMember(a.workspaceId, left.userId, 'remove'), {
    done: false,
    reason: 'last_owner',
  });
  assert.deepEqual(await identity.changeMember(a.workspaceId, a.workspaceId, 'remove'), {
    done: false,
    reason: 'not_member',
  });
});

test("writing a key's last use drops it from no gateway's cache", async () => {
  const log = quietLog('gateway-test');
  const cache = new ApiKeyCache<ApiKeyRow>(database.url, log, { retryMs: 50 });
  cache.start();
  await cache.whenListening();
  try {
    const m = await member();
    const key = await identity.createApiKey(m.workspaceId, 'ci');
    const other = await identity.createApiKey(m.workspaceId, 'other');
    let loads = 0;
    const get = () =>
      cache.get(key.keyId, (id) => {
        loads++;
        return identity.apiKey(id);
      });
    await get();
    new KeyUses(database.db.pool, log).used(key.keyId);
    await until('the last use is written', async () => {
      const rows = await identity.listApiKeys(m.workspaceId);
      return rows.find((r) => r.keyId === key.keyId)?.lastUsedAt != null;
    });
    // Notifications arrive in commit order: once the cache acknowledged this later change, it has seen
    // whatever the last use announced.
    const revoked = await identity.revokeApiKey(other.keyId);
    assert.equal(revoked.acknowledged, revoked.gateways);
    assert.ok(revoked.gateways >= 1);
    await get();
    assert.equal(loads, 1, 'still cached after its last use was written');
    // And a change that matters still drops it.
    await identity.revokeApiKey(key.keyId);
    assert.equal((await get())?.revoked, true);
    assert.equal(loads, 2);
  } finally {
    await cache.stop();
  }
});
