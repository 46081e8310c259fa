// Scheduling against real Postgres: two replicas claiming due monitors at
// once take each exactly once; a claimed monitor is due again at its next
// slot, not before; a check whose replica died is taken over, under the same
// check id; a workspace paused for credits is not claimed until it resumes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { isApiError } from '@wap/errors';
import type { FreshDatabase } from '@wap/testkit';
import type { Monitor } from '../generated/prisma/client.js';
import { freshDatabase, monitorRow } from '../test-support.js';
import { type MonitorDatabase, openMonitorDatabase } from './database.js';
import { MonitorStore } from './monitors.js';
import { PauseStore } from './pauses.js';

let database: FreshDatabase;
const clients: MonitorDatabase[] = [];

before(async () => {
  database = await freshDatabase();
  for (let i = 0; i < 2; i++) clients.push(openMonitorDatabase(database.url));
});
after(async () => {
  await Promise.all(clients.map((c) => c.$disconnect()));
  await database?.drop();
});

async function dueMonitors(n: number, workspaceId: string, dueAt: Date) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const data = monitorRow(workspaceId, dueAt, String(i));
    ids.push(data.id);
    await new MonitorStore(clients[0] as MonitorDatabase).create(data, Number.POSITIVE_INFINITY);
  }
  return ids;
}

test('two replicas claiming at once take every due monitor exactly once, and each is due again an hour on', async () => {
  const workspaceId = `ws-${randomUUID()}`;
  const now = new Date();
  const ids = await dueMonitors(200, workspaceId, new Date(now.getTime() - 1_000));
  const replicas = clients.map((db, i) => ({ name: `replica-${i}`, store: new MonitorStore(db) }));
  const taken = new Map<string, string[]>();
  // Round by round, both replicas claim at the same moment (one replica looping alone on a busy machine
  // could take every row before the other's first query lands, and the test would prove nothing).
  for (let done = false; !done; ) {
    const rounds = await Promise.all(replicas.map(({ name, store }) => store.claimDue(name, 25, 60_000, now)));
    rounds.forEach((claimed, i) => {
      const name = replicas[i]?.name as string;
      for (const c of claimed) taken.set(c.monitor.id, [...(taken.get(c.monitor.id) ?? []), name]);
    });
    done = rounds.every((claimed) => claimed.length === 0);
  }
  assert.equal(taken.size, 200, 'every monitor claimed');
  assert.ok(
    [...taken.values()].every((by) => by.length === 1),
    'none twice',
  );
  assert.ok(new Set([...taken.values()].flat()).size === 2, 'both replicas took a share');
  const rows = await (clients[0] as MonitorDatabase)
    .query<Monitor>`SELECT * FROM monitors WHERE id = ANY(${ids}::uuid[])`;
  for (const row of rows) {
    const ahead = row.nextCheckAt.getTime() - now.getTime();
    assert.ok(ahead > 0 && ahead <= 3_600_000 + 60_000, `due again within the hour and its jitter: ${ahead} ms`);
  }
  assert.deepEqual(await replicas[0]?.store.claimDue('replica-0', 25, 60_000, now), [], 'nothing is due twice');
  const [checks] = await (clients[0] as MonitorDatabase).query<{ n: bigint }>`
    SELECT count(*) AS n FROM checks WHERE workspace_id = ${workspaceId}`;
  assert.equal(checks?.n, 200n, 'one check each');
});

test('a check left by a replica that died is taken over under the same id; a finished one is not', async () => {
  const workspaceId = `ws-${randomUUID()}`;
  const now = new Date();
  await dueMonitors(2, workspaceId, new Date(now.getTime() - 1_000));
  const dead = new MonitorStore(clients[0] as MonitorDatabase);
  const alive = new MonitorStore(clients[1] as MonitorDatabase);
  const [first, second] = await dead.claimDue('dead', 10, 1_000, now);
  assert.ok(first && second);
  assert.equal(await alive.finish(second.check, { status: 'ok' }), true);
  assert.deepEqual(await alive.reclaimLapsed('alive', 10, 60_000, now), [], 'not before its lease lapsed');
  const later = new Date(now.getTime() + 2_000);
  const taken = await alive.reclaimLapsed('alive', 10, 60_000, later);
  assert.deepEqual(
    taken.map((t) => [t.check.id, t.check.claimedBy]),
    [[first.check.id, 'alive']],
  );
  await (clients[0] as MonitorDatabase).execute`DELETE FROM monitors WHERE id = ${first.monitor.id}::uuid`;
  assert.equal(await alive.finish(first.check, { status: 'ok' }), false, 'a monitor deleted meanwhile');
});

test('a workspace paused for credits is not claimed, its monitors wait for the look at its credits; resumed, a slot missed meanwhile is due once', async () => {
  const db = clients[0] as MonitorDatabase;
  const store = new MonitorStore(db);
  const pauses = new PauseStore(db);
  const broke = `ws-${randomUUID()}`;
  const now = new Date();
  const at = (ms: number) => new Date(now.getTime() + ms);
  const [missed, recent] = (await dueMonitors(2, broke, at(-1_000))) as [string, string];
  const [paying] = await dueMonitors(1, `ws-${randomUUID()}`, at(-1_000));
  // `missed` was last checked two hours ago: its next slot comes while it is paused. `recent` a minute ago.
  await db.execute`UPDATE monitors SET last_check_at = ${at(-7_200_000)}, anchor_at = ${at(-10_800_000)} WHERE id = ${missed}::uuid`;
  await db.execute`UPDATE monitors SET last_check_at = ${at(-60_000)}, anchor_at = ${at(-60_000)} WHERE id = ${recent}::uuid`;
  await pauses.pause(broke, at(60_000));
  await pauses.pause(broke, at(600_000)); // another check refused meanwhile: the pause stands as it was
  const rows = () => db.query<Monitor>`SELECT * FROM monitors WHERE workspace_id = ${broke} ORDER BY created_at`;
  assert.deepEqual(
    (await rows()).map((m) => [m.nextCheckAt.getTime(), m.skippedReason]),
    [
      [at(60_000).getTime(), 'credits'],
      [at(60_000).getTime(), 'credits'],
    ],
    'put off to the first look at its credits',
  );
  const claimed = await store.claimDue('r', 10, 60_000, at(120_000));
  assert.deepEqual(
    claimed.map((c) => c.monitor.id),
    [paying],
    'not claimed while paused, even once its monitors are due',
  );
  assert.ok(((await store.nextDueAt()) ?? at(Infinity)) > at(120_000), 'nor waited for');
  // A monitor made meanwhile waits with the others; the cap counts it.
  const made = await store.create({ ...monitorRow(broke, now, 'new'), anchorAt: now }, 3);
  assert.deepEqual([made.nextCheckAt.getTime(), made.skippedReason], [at(60_000).getTime(), 'credits']);
  await assert.rejects(
    store.create(monitorRow(broke, now, 'one-more'), 3),
    (err) => isApiError(err) && err.code === 'cap_exceeded',
  );
  // The ledger announced its credits changed: looked at by one replica, at once.
  assert.equal(await pauses.probeSoon([broke, `ws-${randomUUID()}`]), 1);
  assert.deepEqual(await pauses.takeDue(10, 30_000), [{ workspaceId: broke, probes: 0 }]);
  assert.deepEqual(await new PauseStore(clients[1] as MonitorDatabase).takeDue(10, 30_000), [], 'one look at a time');
  // Still too little: put off again, no monitor due before.
  await pauses.putOff(broke, at(300_000));
  assert.ok((await rows()).every((m) => m.nextCheckAt >= at(300_000)));
  // Credits came back: each monitor is due at its own next check, a slot missed meanwhile at once.
  assert.equal(await pauses.resume(broke), true);
  assert.equal(await pauses.resume(broke), false, 'once');
  const back = await store.claimDue('r', 10, 60_000, at(61_000));
  assert.deepEqual(back.map((c) => c.monitor.id).sort(), [missed, made.id].sort(), 'the missed slot and the new one');
  const after = new Map((await rows()).map((m) => [m.id, m]));
  assert.ok((after.get(recent)?.nextCheckAt ?? now) > at(3_000_000), 'the one checked a minute ago keeps its slot');
  assert.ok(
    [...after.values()].every((m) => m.skippedReason === null),
    'no longer skipped',
  );
});
