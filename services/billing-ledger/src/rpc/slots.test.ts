// Concurrent-browser slots through the real gRPC server and database.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isApiError } from '@wap/errors';
import { ledger } from '@wap/proto';
import { freshDatabase, type InProcessLedger, serveLedger, TestClock, type TestDatabase } from '../test-support.js';

let database: TestDatabase;
let server: InProcessLedger;
const clock = new TestClock();

before(async () => {
  database = await freshDatabase();
  server = await serveLedger(database.url, clock.now);
});
after(async () => {
  await server?.close();
  await database?.drop();
});

async function workspace(name: string, plan: ledger.Plan) {
  await server.client.ensureAccount({ workspaceId: name, plan });
  return name;
}

async function refusal(promise: Promise<unknown>) {
  const err = await promise.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(isApiError(err));
  return err;
}

test("the plan's limit holds; the same holder gets its lease back; release frees a slot", async () => {
  const c = server.client;
  const workspaceId = await workspace('slots-free', ledger.Plan.FREE);
  const a = await c.acquireSlot({ workspaceId, holder: 'session-a', ttlSeconds: 60 });
  const b = await c.acquireSlot({ workspaceId, holder: 'session-b', ttlSeconds: 60 });
  assert.deepEqual([a.limit, a.active, b.active], [2, 1, 2]);
  const again = await c.acquireSlot({ workspaceId, holder: 'session-a', ttlSeconds: 60 });
  assert.equal(again.leaseId, a.leaseId);
  assert.equal(again.active, 2);
  const err = await refusal(c.acquireSlot({ workspaceId, holder: 'session-c', ttlSeconds: 60 }));
  assert.equal(err.code, 'concurrency_limit');
  assert.equal(err.status, 429);
  assert.deepEqual(err.details, { kind: 'browsers', limit: 2, active: 2, inUse: 2, retryAfterSeconds: 60 });
  await c.releaseSlot({ leaseId: b.leaseId });
  await c.releaseSlot({ leaseId: b.leaseId }); // twice is a no-op
  const cSlot = await c.acquireSlot({ workspaceId, holder: 'session-c', ttlSeconds: 60 });
  assert.equal(cSlot.active, 2);
});

test('a lease frees itself unless renewed; a lapsed lease cannot be renewed', async () => {
  const c = server.client;
  const workspaceId = await workspace('slots-expiry', ledger.Plan.FREE);
  const kept = await c.acquireSlot({ workspaceId, holder: 'kept', ttlSeconds: 30 });
  const dropped = await c.acquireSlot({ workspaceId, holder: 'dropped', ttlSeconds: 30 });
  clock.advance(20);
  const renewed = await c.renewSlot({ leaseId: kept.leaseId, ttlSeconds: 30 });
  assert.equal(Number(renewed.expiresAt?.seconds) * 1000, clock.now().getTime() + 30_000);
  clock.advance(15); // `dropped` lapsed 5 s ago; `kept` has 15 s left
  const fresh = await c.acquireSlot({ workspaceId, holder: 'fresh', ttlSeconds: 30 });
  assert.equal(fresh.active, 2);
  assert.equal((await refusal(c.renewSlot({ leaseId: dropped.leaseId, ttlSeconds: 30 }))).code, 'not_found');
  assert.equal(
    (await refusal(c.acquireSlot({ workspaceId, holder: 'late', ttlSeconds: 30 }))).code,
    'concurrency_limit',
  );
});

test('concurrent acquires never pass the limit', async () => {
  const c = server.client;
  const workspaceId = await workspace('slots-race', ledger.Plan.BUILDER);
  const results = await Promise.allSettled(
    Array.from({ length: 40 }, (_, i) => c.acquireSlot({ workspaceId, holder: `h${i}`, ttlSeconds: 60 })),
  );
  const granted = results.filter((r) => r.status === 'fulfilled');
  const refused = results.filter((r) => r.status === 'rejected');
  assert.equal(granted.length, 5);
  for (const r of refused) assert.equal((r.reason as { code: string }).code, 'concurrency_limit');
});

test('a plan change moves the limit', async () => {
  const c = server.client;
  const workspaceId = await workspace('slots-upgrade', ledger.Plan.FREE);
  await c.acquireSlot({ workspaceId, holder: 'a' });
  await c.acquireSlot({ workspaceId, holder: 'b' });
  await c.ensureAccount({ workspaceId, plan: ledger.Plan.PRO });
  const third = await c.acquireSlot({ workspaceId, holder: 'c' });
  assert.deepEqual([third.limit, third.active], [25, 3]);
});

test('unknown accounts and leases answer not_found', async () => {
  const c = server.client;
  assert.equal((await refusal(c.acquireSlot({ workspaceId: 'nobody', holder: 'x' }))).code, 'not_found');
  assert.equal(
    (await refusal(c.renewSlot({ leaseId: '00000000-0000-4000-8000-000000000000', ttlSeconds: 5 }))).code,
    'not_found',
  );
});

test('operators list who holds a workspace’s slots: live leases only, oldest first, and no other workspace’s', async () => {
  const c = server.client;
  const workspaceId = await workspace('slots-listed', ledger.Plan.BUILDER);
  const other = await workspace('slots-listed-other', ledger.Plan.FREE);
  await c.acquireSlot({ workspaceId, holder: 'session:first', ttlSeconds: 60 });
  clock.advance(1);
  await c.acquireSlot({ workspaceId, holder: 'session:lapsing', ttlSeconds: 5 });
  clock.advance(1);
  await c.acquireSlot({ workspaceId, holder: 'render:op_1', ttlSeconds: 60 });
  await c.acquireSlot({ workspaceId: other, holder: 'session:elsewhere', ttlSeconds: 60 });
  clock.advance(10); // the 5 s lease lapsed
  const listed = await c.listSlots({ workspaceId });
  assert.equal(listed.limit, 5);
  assert.deepEqual(
    listed.holders.map((h) => h.holder),
    ['session:first', 'render:op_1'],
  );
  const unknown = await refusal(c.listSlots({ workspaceId: 'slots-nobody' }));
  assert.equal(unknown.code, 'not_found');
});
