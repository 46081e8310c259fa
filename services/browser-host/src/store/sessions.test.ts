import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createPrismaAdapter } from '@wap/db';
import { type FreshDatabase, quietLog } from '@wap/testkit';
import { PrismaClient } from '../generated/prisma/client.js';
import { lostSessionSweeper } from '../jobs/lost-sessions.js';
import { freshDatabase } from '../test-support.js';
import { SessionStore } from './sessions.js';

let database: FreshDatabase;
let db: PrismaClient;
let store: SessionStore;

before(async () => {
  database = await freshDatabase();
  db = new PrismaClient({ adapter: createPrismaAdapter(database.url) });
  store = new SessionStore(db);
});
after(async () => {
  await db.$disconnect();
  await database.drop();
});

const open = async () => {
  const id = randomUUID();
  await store.opened({ id, workspaceId: randomUUID(), operationId: `op_${id}`, options: { idleTimeoutSeconds: 0 } });
  return id;
};

test('a session row ends once: the first end is kept', async () => {
  const id = await open();
  assert.equal((await store.get(id))?.status, 'live');
  await store.ended(id, { outcome: 'closed', chargedMc: 1_084n, proxyBytes: 2_048 });
  await store.ended(id, { outcome: 'lifetime', chargedMc: 9n, proxyBytes: 0 });
  const row = await store.get(id);
  assert.deepEqual(
    { status: row?.status, outcome: row?.outcome, chargedMc: row?.chargedMc, proxyBytes: row?.proxyBytes },
    { status: 'ended', outcome: 'closed', chargedMc: 1_084n, proxyBytes: 2_048n },
  );
});

test('the sweep ends the rows of a host that stopped beating as host_lost, and only those', async () => {
  const lost = await open();
  const alive = await open();
  await db.$executeRawUnsafe(
    `UPDATE browser_sessions SET heartbeat_at = now() - interval '10 minutes' WHERE id = $1::uuid`,
    lost,
  );
  await store.heartbeat(alive);
  const swept = await lostSessionSweeper(store, quietLog()).runOnce();
  assert.ok(swept >= 1);
  assert.deepEqual(
    { status: (await store.get(lost))?.status, outcome: (await store.get(lost))?.outcome },
    { status: 'ended', outcome: 'host_lost' },
  );
  assert.equal((await store.get(alive))?.status, 'live');
});
