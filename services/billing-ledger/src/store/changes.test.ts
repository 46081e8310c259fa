import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { ledger } from '@wap/proto';
import { freshDatabase, serveLedger, TestClock, type TestDatabase } from '../test-support.js';

const { Meter, Plan, GrantKind } = ledger;
const page = (n: bigint) => [{ meter: Meter.PAGE_LOAD, quantity: n }];
const clock = new TestClock();
let seq = 0;
const key = () => `changes-key-${++seq}`;

/** A ledger whose announcements are collected, message by message. */
async function announcingLedger(url: string) {
  const messages: string[][] = [];
  const server = await serveLedger(url, clock.now, undefined, (ids) => messages.push(ids));
  const changes = server.changes;
  /**
   * Once the announcements of the calls made so far are out. The ledger runs in
   * this process and tells its changes before it answers: all are told by now.
   */
  const out = async () => changes?.announced();
  /** Everything announced since the last call, once out. */
  const announced = async () => {
    await out();
    return messages.splice(0).flat().sort();
  };
  return { server, messages, out, announced };
}

let database: TestDatabase;
let a: Awaited<ReturnType<typeof announcingLedger>>;
let b: Awaited<ReturnType<typeof announcingLedger>>;

before(async () => {
  database = await freshDatabase();
  a = await announcingLedger(database.url);
  b = await announcingLedger(database.url);
});
after(async () => {
  await a?.server.close();
  await b?.server.close();
  await database?.drop();
});

test("every committed change to a workspace's credits announces the workspace; a refusal announces nothing", async () => {
  const c = a.server.client;
  const workspaceId = `ws-changes-${++seq}`;
  await c.ensureAccount({ workspaceId, plan: Plan.FREE });
  assert.deepEqual(await a.announced(), [workspaceId], 'opening the account');
  await c.grant({
    workspaceId,
    idempotencyKey: key(),
    kind: GrantKind.PROMOTIONAL,
    millicredits: 2_000n,
    lapsesAt: timestampFromMs(clock.now().getTime() + 3_600_000),
  });
  assert.deepEqual(await a.announced(), [workspaceId], 'a grant');
  const { holdId } = await c.authorize({
    workspaceId,
    idempotencyKey: key(),
    capability: 'crawl',
    millicredits: 5_000n,
  });
  assert.deepEqual(await a.announced(), [workspaceId], 'a hold');
  await c.settle({ holdId, idempotencyKey: key(), meters: page(1n) });
  assert.deepEqual(await a.announced(), [workspaceId], 'a settle, which names only the hold');
  await c.void({ holdId });
  assert.deepEqual(await a.announced(), [workspaceId], 'a void');
  await c.charge({ workspaceId, idempotencyKey: key(), capability: 'scrape', meters: page(1n) });
  assert.deepEqual(await a.announced(), [workspaceId], 'a charge');

  await assert.rejects(
    c.authorize({ workspaceId, idempotencyKey: key(), capability: 'crawl', millicredits: 10_000_000n }),
    (err: { code?: string }) => err.code === 'quota_exceeded',
  );
  await assert.rejects(c.settle({ holdId, idempotencyKey: key(), meters: page(1n) }));
  assert.deepEqual(await a.announced(), [], 'refused: nothing changed, nothing announced');
  await c.credits({ workspaceId });
  assert.deepEqual(await a.announced(), [], 'a read announces nothing');
});

test('a hold placed by another ledger process is traced to its workspace through the database', async () => {
  const workspaceId = `ws-changes-${++seq}`;
  await a.server.client.ensureAccount({ workspaceId, plan: Plan.FREE });
  const { holdId } = await a.server.client.authorize({
    workspaceId,
    idempotencyKey: key(),
    capability: 'crawl',
    millicredits: 3_000n,
  });
  await a.announced();
  await b.announced();
  await b.server.client.settle({ holdId, idempotencyKey: key(), meters: page(1n) });
  assert.deepEqual(await b.announced(), [workspaceId]);
  await b.server.client.void({ holdId });
  assert.deepEqual(await b.announced(), [workspaceId]);
});

test('changes made together go out together: one message names each workspace once', async () => {
  const c = a.server.client;
  const first = `ws-changes-${++seq}`;
  const second = `ws-changes-${++seq}`;
  const holds: string[] = [];
  for (const workspaceId of [first, second]) {
    await c.ensureAccount({ workspaceId, plan: Plan.FREE });
    holds.push(
      (await c.authorize({ workspaceId, idempotencyKey: key(), capability: 'crawl', millicredits: 5_000n })).holdId,
    );
  }
  await a.announced();
  await c.settleBatch({
    settles: [...holds, ...holds].map((holdId) => ({ holdId, idempotencyKey: key(), meters: page(1n) })),
  });
  await a.out();
  assert.equal(a.messages.length, 1, JSON.stringify(a.messages));
  assert.deepEqual(await a.announced(), [first, second].sort());
});
