// The runs table against real Postgres: claims and their leases, the fence
// every loop write passes, event sequences shared by the loop and the RPCs,
// and what each transition leaves.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FreshDatabase } from '@wap/testkit';
import { claimFor as claimRun, freshDatabase, submitTestRun } from '../test-support.js';
import { type AgentDatabase, openAgentDatabase } from './database.js';
import { ClaimLost } from './fenced.js';
import { RunStore } from './runs.js';

let database: FreshDatabase;
let db: AgentDatabase;
let store: RunStore;
const workspaceId = randomUUID();

before(async () => {
  database = await freshDatabase();
  db = openAgentDatabase(database.url);
  store = new RunStore(db);
});

after(async () => {
  await db.$disconnect();
  await database.drop();
});

const newRun = (files = 0) => submitTestRun(store, workspaceId, files);
const claimFor = (replica: string, id: string, leaseMs?: number) => claimRun(store, replica, id, leaseMs);

describe('claims', () => {
  test('a queued run is claimed once; a lapsed claim is taken over and the first replica is fenced out', async () => {
    const id = await newRun();
    const first = await claimFor('replica-a', id, 200);
    assert.equal(first?.attempt, 1);
    assert.equal(await claimFor('replica-b', id), undefined, 'a live claim is not taken');
    await new Promise((r) => setTimeout(r, 250)); // the lease, not a pace: it must have lapsed
    const second = await claimFor('replica-b', id);
    assert.equal(second?.attempt, 2);
    const stale = store.fenced(id, 'replica-a');
    await assert.rejects(stale.event({ level: 'step', kind: 'step', message: 'late' }), ClaimLost);
    await assert.rejects(stale.renew(1_000), ClaimLost);
    await assert.rejects(stale.settle('completed', null, 'x'), ClaimLost);
    const live = store.fenced(id, 'replica-b');
    await live.event({ level: 'step', kind: 'step', message: 'mine' });
    const events = await store.events(id, ['summary', 'step', 'debug'], 0n, 100);
    assert.deepEqual(
      events.map((e) => [Number(e.seq), e.message]),
      [
        [1, 'queued'],
        [2, 'mine'],
      ],
    );
  });

  test('a postponed run (waiting for a browser slot) is claimed by none until its time, then by any', async () => {
    const id = await newRun();
    await claimFor('replica-a', id);
    await store.fenced(id, 'replica-a').postpone(300);
    assert.equal(await claimFor('replica-b', id), undefined, 'not before its time');
    await new Promise((r) => setTimeout(r, 350)); // the postponement itself, not a pace
    assert.equal((await claimFor('replica-b', id))?.attempt, 2);
  });

  test('a settled run is never claimed again', async () => {
    const id = await newRun(2);
    await claimFor('replica-a', id);
    await store.fenced(id, 'replica-a').settle('completed', null, { ok: true });
    assert.equal(await claimFor('replica-c', id), undefined);
    assert.deepEqual(await store.files(id), [], 'files go with every ending');
  });
});

describe('transitions', () => {
  test('cancelling a queued run settles it at once and destroys its files; a claimed one is asked to stop', async () => {
    const queued = await newRun(1);
    const row = await store.cancel(workspaceId, queued);
    assert.equal(row?.status, 'settled');
    assert.equal(row?.outcome, 'cancelled');
    assert.equal((await store.files(queued)).length, 0);
    const claimed = await newRun(1);
    await claimFor('replica-a', claimed);
    const asked = await store.cancel(workspaceId, claimed);
    assert.equal(asked?.status, 'queued', 'its loop settles it');
    assert.equal(asked?.cancelRequested, true);
    assert.equal(await store.cancel(randomUUID(), claimed), null, "another workspace's run does not exist");
  });

  test('records keep their order and survive the ending', async () => {
    const id = await newRun();
    await claimFor('replica-a', id);
    const loop = store.fenced(id, 'replica-a');
    for (const n of [1, 2, 3]) await loop.record({ n });
    await loop.settle('failed', { code: 'max_steps', message: 'cap' }, undefined);
    const records = await store.records(id, 1n, 10);
    assert.deepEqual(
      records.map((r) => r.data),
      [{ n: 2 }, { n: 3 }],
    );
  });
});
