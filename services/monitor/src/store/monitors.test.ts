// Scheduling against real Postgres: two replicas claiming due monitors at
// once take each exactly once; a claimed monitor is due again at its next
// slot, not before; a check whose replica died is taken over, under the same
// check id.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createPrismaAdapter } from '@wap/db';
import type { FreshDatabase } from '@wap/testkit';
import { PrismaClient } from '../generated/prisma/client.js';
import { freshDatabase } from '../test-support.js';
import { MonitorStore } from './monitors.js';

let database: FreshDatabase;
const clients: PrismaClient[] = [];

before(async () => {
  database = await freshDatabase();
  for (let i = 0; i < 2; i++) clients.push(new PrismaClient({ adapter: createPrismaAdapter(database.url) }));
});
after(async () => {
  await Promise.all(clients.map((c) => c.$disconnect()));
  await database?.drop();
});

async function dueMonitors(n: number, workspaceId: string, dueAt: Date) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    ids.push(id);
    await (clients[0] as PrismaClient).monitor.create({
      data: {
        id,
        workspaceId,
        url: `http://127.0.0.1/${i}`,
        schedule: { kind: 'every', ms: 3_600_000 },
        watch: { kind: 'main' },
        scrape: {},
        targetKind: 'webhook',
        targetSealed: 'x',
        targetShown: 'https://example.com/…',
        anchorAt: new Date(dueAt.getTime() - 3_600_000),
        nextCheckAt: dueAt,
      },
    });
  }
  return ids;
}

test('two replicas claiming at once take every due monitor exactly once, and each is due again an hour on', async () => {
  const workspaceId = `ws-${randomUUID()}`;
  const now = new Date();
  const ids = await dueMonitors(200, workspaceId, new Date(now.getTime() - 1_000));
  const replicas = clients.map((db, i) => ({ name: `replica-${i}`, store: new MonitorStore(db) }));
  const taken = new Map<string, string[]>();
  await Promise.all(
    replicas.map(async ({ name, store }) => {
      for (;;) {
        const claimed = await store.claimDue(name, 25, 60_000, now);
        if (claimed.length === 0) return;
        for (const c of claimed) taken.set(c.monitor.id, [...(taken.get(c.monitor.id) ?? []), name]);
      }
    }),
  );
  assert.equal(taken.size, 200, 'every monitor claimed');
  assert.ok(
    [...taken.values()].every((by) => by.length === 1),
    'none twice',
  );
  assert.ok(new Set([...taken.values()].flat()).size === 2, 'both replicas took a share');
  const rows = await (clients[0] as PrismaClient).monitor.findMany({ where: { id: { in: ids } } });
  for (const row of rows) {
    const ahead = row.nextCheckAt.getTime() - now.getTime();
    assert.ok(ahead > 0 && ahead <= 3_600_000 + 60_000, `due again within the hour and its jitter: ${ahead} ms`);
  }
  assert.deepEqual(await replicas[0]?.store.claimDue('replica-0', 25, 60_000, now), [], 'nothing is due twice');
  assert.equal(await (clients[0] as PrismaClient).check.count({ where: { workspaceId } }), 200, 'one check each');
});

test('a check left by a replica that died is taken over under the same id; a finished one is not', async () => {
  const workspaceId = `ws-${randomUUID()}`;
  const now = new Date();
  await dueMonitors(2, workspaceId, new Date(now.getTime() - 1_000));
  const dead = new MonitorStore(clients[0] as PrismaClient);
  const alive = new MonitorStore(clients[1] as PrismaClient);
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
  await (clients[0] as PrismaClient).monitor.delete({ where: { id: first.monitor.id } });
  assert.equal(await alive.finish(first.check, { status: 'ok' }), false, 'a monitor deleted meanwhile');
});
