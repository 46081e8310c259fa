// The billing client's metered holds (libs/billing) against this ledger served on a
// real gRPC server and database: what a browser session or an agent run will rely on.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { MeteredHold, type MeteredState, recoverMetered } from '@wap/billing';
import { ledger } from '@wap/proto';
import { createClient } from '@wap/rpc';
import { TEST_SERVICE_TOKEN, until } from '@wap/testkit';
import { freshDatabase, type InProcessLedger, serveLedger, TestClock, type TestDatabase } from './test-support.js';

let database: TestDatabase;
let served: InProcessLedger;
const clock = new TestClock();

before(async () => {
  database = await freshDatabase();
  served = await serveLedger(database.url, clock.now);
});
after(async () => {
  await served?.close();
  await database?.drop();
});

/** A workspace with `allowanceMc` to spend this month and nothing else. */
async function workspace(allowanceMc: bigint) {
  const workspaceId = `ws-metered-${randomUUID()}`;
  await served.client.ensureAccount({
    workspaceId,
    plan: ledger.Plan.FREE,
    monthlyAllowanceMillicredits: allowanceMc,
  });
  return workspaceId;
}

const charge = (workspaceId: string) => ({ workspaceId, operationId: `op_${randomUUID()}`, capability: 'connect' });
const credits = (workspaceId: string) => served.client.credits({ workspaceId });

test('browser time settled as it accrues costs exactly what it costs at once: one rounding, at the end', async () => {
  const workspaceId = await workspace(100_000n);
  const session = await MeteredHold.open(served.client, charge(workspaceId), { aheadMc: 5_000n });
  for (let i = 0; i < 10; i++) {
    session.add('context_seconds', 7n);
    await session.settle();
  }
  // 70 s: 1,166.67 mc, rounded up once. Settling 7 s at a time would have charged 117 × 10 = 1,170.
  assert.equal(await session.close(), 1_167n);
  const c = await credits(workspaceId);
  assert.equal(c.allowanceSpentMillicredits, 1_167n);
  assert.equal(c.heldMillicredits, 0n, 'nothing stays held after close');
});

test('a long session takes its next hold before the current one runs out, and holds one stretch at a time', async () => {
  const workspaceId = await workspace(100_000n);
  const session = await MeteredHold.open(served.client, charge(workspaceId), { aheadMc: 1_000n });
  let mostHeld = 0n;
  for (let i = 0; i < 20; i++) {
    session.add('context_seconds', 15n); // a quarter of a credit
    await session.settle();
    const c = await credits(workspaceId);
    if (c.heldMillicredits > mostHeld) mostHeld = c.heldMillicredits;
  }
  assert.equal(await session.close(), 5_000n, 'five minutes of browser time');
  assert.ok(mostHeld <= 1_000n, `never more than one stretch held: ${mostHeld}`);
  assert.equal((await credits(workspaceId)).allowanceSpentMillicredits, 5_000n);
});

test('proxy bytes and browser time together, each settled in whole units', async () => {
  const workspaceId = await workspace(100_000n);
  const session = await MeteredHold.open(served.client, charge(workspaceId), { aheadMc: 10_000n });
  session.add('proxy_bytes', 1_250_000n); // 2.5 credits at 2,000 per GB
  session.add('context_seconds', 30n); // half a credit
  await session.settle();
  session.add('proxy_bytes', 499n); // under one exact unit (500 bytes = 1 mc): carried to the end
  await session.settle();
  assert.equal(await session.close(), 2_500n + 500n + 1n);
});

test('when credit runs out the owner is told, and no balance ever goes below zero', async () => {
  const workspaceId = await workspace(2_000n);
  const told: string[] = [];
  const session = await MeteredHold.open(served.client, charge(workspaceId), {
    aheadMc: 1_500n,
    onExhausted: (err) => told.push(err.code),
  });
  session.add('context_seconds', 60n);
  await session.settle(); // 1 credit spent: the next hold of 1.5 credits no longer fits
  assert.deepEqual(told, ['quota_exceeded']);
  session.add('context_seconds', 120n); // the owner was slow to stop: 2 more credits of use
  await session.settle();
  await session.close();
  const c = await credits(workspaceId);
  assert.equal(c.allowanceSpentMillicredits, 2_000n, 'charged up to what the workspace had, not beyond');
  assert.equal(c.availableMillicredits, 0n);
  assert.deepEqual(told, ['quota_exceeded'], 'told once');
});

test('a session the workspace cannot cover at all does not start', async () => {
  const workspaceId = await workspace(500n);
  await assert.rejects(
    MeteredHold.open(served.client, charge(workspaceId), { aheadMc: 1_000n }),
    (err: { code?: string }) => err.code === 'quota_exceeded',
  );
});

/** Two 30 s stretches settled through a journal that can die at its `dieAt`-th charge. */
async function journaledSession(workspaceId: string, dieAt?: number) {
  const states: MeteredState[] = [];
  let charges = 0;
  const owner = charge(workspaceId);
  const session = await MeteredHold.open(served.client, owner, {
    aheadMc: 5_000n,
    journal: async (state) => {
      states.push(state);
      if (state.pending && ++charges === dieAt) throw new Error('the owner died');
    },
  });
  for (let i = 0; i < 2; i++) {
    session.add('context_seconds', 30n);
    await session.settle().catch(() => undefined);
  }
  return { owner, states };
}

// The owner was last seen alive 70 s in: 60 s settled in exact units, the last 10 s rounded once.
const SEVENTY_SECONDS = [{ meter: 'context_seconds' as const, quantity: 70n }];

test('a dead owner whose last settle reached the ledger unjournaled is billed from its journal exactly once', async () => {
  const workspaceId = await workspace(100_000n);
  const { owner, states } = await journaledSession(workspaceId);
  // The row kept the state written before the second settle: the ledger has it, the row does not know.
  const row = states.at(-2) as MeteredState;
  assert.equal(row.pending?.meters.context_seconds, '30');
  assert.equal(await recoverMetered(served.client, owner, row, SEVENTY_SECONDS), 1_167n);
  // Every sweep that finds the row again, even at once, charges nothing more.
  const again = await Promise.all([1, 2].map(() => recoverMetered(served.client, owner, row, SEVENTY_SECONDS)));
  assert.deepEqual(again, [1_167n, 1_167n]);
  const c = await credits(workspaceId);
  assert.equal(c.allowanceSpentMillicredits, 1_167n);
  assert.equal(c.heldMillicredits, 0n, 'the hold is released');
});

test('a dead owner whose last settle never reached the ledger is billed for it by the recovery', async () => {
  const workspaceId = await workspace(100_000n);
  const { owner, states } = await journaledSession(workspaceId, 2);
  const row = states.at(-1) as MeteredState;
  assert.ok(row.pending, 'it died with a settle journaled and not sent');
  assert.equal((await credits(workspaceId)).allowanceSpentMillicredits, 500n, 'only the first 30 s reached the ledger');
  assert.equal(await recoverMetered(served.client, owner, row, SEVENTY_SECONDS), 1_167n);
  assert.equal(await recoverMetered(served.client, owner, row, SEVENTY_SECONDS), 1_167n);
  const c = await credits(workspaceId);
  assert.equal(c.allowanceSpentMillicredits, 1_167n);
  assert.equal(c.heldMillicredits, 0n);
});

test('a hold the ledger could not release at the end is released as soon as the ledger is back', async () => {
  const workspaceId = await workspace(100_000n);
  // A ledger of its own that goes away and comes back at the same address, as a restarted pod does.
  const first = await serveLedger(database.url, clock.now);
  const port = Number(first.address.split(':').at(-1));
  const client = createClient(ledger.LedgerService, first.address, {
    defaultTimeoutMs: 2_000,
    token: TEST_SERVICE_TOKEN,
  });
  try {
    const session = await MeteredHold.open(client, charge(workspaceId), { aheadMc: 5_000n });
    assert.equal((await credits(workspaceId)).heldMillicredits, 5_000n);
    await first.close();
    assert.equal(await session.close(), 0n, 'nothing was used');
    assert.equal((await credits(workspaceId)).heldMillicredits, 5_000n, 'the void could not reach the ledger');
    const back = await serveLedger(database.url, clock.now, undefined, undefined, port);
    try {
      // Not when the hour-long hold lapses: the void is tried again until the ledger takes it.
      await until('the hold released', async () => (await credits(workspaceId)).heldMillicredits === 0n, 30_000);
    } finally {
      await back.close();
    }
  } finally {
    client.close();
  }
});
