// Group commit through the real gRPC server and database: calls that arrive a
// little apart share one transaction, yet each lands exactly as it would alone,
// answers its own refusal, and a workspace's calls keep their arrival order.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { priceUsage } from '@wap/billing';
import { isApiError } from '@wap/errors';
import { ledger } from '@wap/proto';
import { allowancePeriod } from '../domain/period.js';
import { DEFAULT_BATCHING } from '../store/batcher.js';
import { isRefusal } from '../store/call.js';
import { freshDatabase, type InProcessLedger, serveLedger, TestClock, type TestDatabase } from '../test-support.js';

const { Meter, Plan } = ledger;
const PAGE_MC = 1_000n; // one page_load
const page = [{ meter: Meter.PAGE_LOAD, quantity: 1n }];

let database: TestDatabase;
/** The ledger's own settings, the service's default gather window included. */
let usual: InProcessLedger;
/** A window no test outlasts: a batch leaves only when full, so its members are known. */
let fullOnly: InProcessLedger;
const ONE_BATCH = 12;
const clock = new TestClock();

before(async () => {
  database = await freshDatabase();
  usual = await serveLedger(database.url, clock.now);
  fullOnly = await serveLedger(database.url, clock.now, { maxInFlight: 1, maxBatch: ONE_BATCH, gatherMs: 60_000 });
});
after(async () => {
  await usual?.close();
  await fullOnly?.close();
  await database?.drop();
});

async function account(server: InProcessLedger, workspaceId: string, allowanceMc: bigint) {
  await server.client.ensureAccount({ workspaceId, plan: Plan.BUILDER, monthlyAllowanceMillicredits: allowanceMc });
  return workspaceId;
}

test('the default settings gather calls: many concurrent pairs over workspaces land with exact balances', async () => {
  assert.ok((DEFAULT_BATCHING.gatherMs ?? 0) > 0, 'the service gathers by default');
  const workspaces = await Promise.all(
    Array.from({ length: 8 }, (_, i) => account(usual, `gc-spread-${i}`, 10n * PAGE_MC)),
  );
  const before = usual.deps.money.batcher.batched;
  // 15 pairs per workspace, all at once: the allowance covers exactly 10 of them.
  const outcomes = await Promise.all(
    workspaces.flatMap((workspaceId) =>
      Array.from({ length: 15 }, async (_, i) => {
        const hold = await usual.client
          .authorize({ workspaceId, idempotencyKey: `a-${i}`, capability: 'scrape', millicredits: PAGE_MC })
          .catch((e: unknown) => e);
        if (isApiError(hold)) return hold.code;
        const settled = await usual.client.settle({
          holdId: (hold as ledger.AuthorizeResponse).holdId,
          idempotencyKey: `s-${i}`,
          meters: page,
        });
        assert.equal(settled.usage?.millicredits, PAGE_MC);
        assert.equal(settled.holdRemainingMillicredits, 0n);
        return 'settled';
      }),
    ),
  );
  assert.equal(outcomes.filter((o) => o === 'settled').length, 80, 'ten pairs per workspace');
  assert.equal(outcomes.filter((o) => o === 'quota_exceeded').length, 40, 'the rest refused, each on its own');
  assert.ok(usual.deps.money.batcher.batched > before, 'calls shared transactions');
  for (const workspaceId of workspaces) {
    const credits = await usual.client.credits({ workspaceId });
    assert.equal(credits.allowanceSpentMillicredits, 10n * PAGE_MC, `${workspaceId}: every settle charged once`);
    assert.equal(credits.heldMillicredits, 0n, `${workspaceId}: nothing left held`);
    const usage = await usual.client.usage({ workspaceId });
    assert.equal(usage.total?.millicredits, 10n * PAGE_MC, `${workspaceId}: billed per call`);
  }
});

test('in one batch, each refused call answers its own error and the others succeed', async () => {
  const rich = await account(usual, 'gc-one-rich', 100n * PAGE_MC);
  const poor = await account(usual, 'gc-one-poor', PAGE_MC);
  const done = await usual.client.authorize({
    workspaceId: rich,
    idempotencyKey: 'done',
    capability: 'scrape',
    millicredits: PAGE_MC,
  });
  await usual.client.settle({ holdId: done.holdId, idempotencyKey: 'done-s', meters: page });
  const used = await usual.client.authorize({
    workspaceId: rich,
    idempotencyKey: 'used',
    capability: 'scrape',
    millicredits: PAGE_MC,
  });
  // Calls that came together make the ledger busy: the next ones wait for each other until the batch is full.
  const c = fullOnly.client;
  const warm = await account(usual, 'gc-one-warm', 10n * PAGE_MC);
  const usage = priceUsage([{ meter: 'page_load', quantity: 1n }]);
  const at = { now: clock.now(), period: allowancePeriod(clock.now()) };
  // Two calls made in one turn of the ledger's event loop leave as one batch.
  await Promise.all(
    [1, 2].map((i) =>
      fullOnly.deps.money.charge(
        { workspaceId: warm, key: `w-${i}`, hash: `w-${i}`, capability: 'scrape', reference: '', usage },
        at,
      ),
    ),
  );
  assert.equal(fullOnly.deps.money.batcher.batched, 2, 'the ledger is busy');
  const sent = fullOnly.deps.money.batcher.batched;
  const calls: Promise<unknown>[] = [
    c.authorize({ workspaceId: poor, idempotencyKey: 'too-much', capability: 'scrape', millicredits: 5n * PAGE_MC }),
    c.authorize({ workspaceId: 'gc-nobody', idempotencyKey: 'x', capability: 'scrape', millicredits: PAGE_MC }),
    // The key of an Authorize reused for another request.
    c.authorize({ workspaceId: rich, idempotencyKey: 'used', capability: 'crawl', millicredits: 2n * PAGE_MC }),
    c.settle({ holdId: done.holdId, idempotencyKey: 'late', meters: page }),
    c.settle({ holdId: used.holdId, idempotencyKey: 'over', meters: [{ meter: Meter.PAGE_LOAD, quantity: 3n }] }),
    ...Array.from({ length: ONE_BATCH - 6 }, (_, i) =>
      c.charge({ workspaceId: rich, idempotencyKey: `ok-${i}`, capability: 'scrape', meters: page }),
    ),
    c.settle({ holdId: used.holdId, idempotencyKey: 'fits', meters: page }),
  ];
  const answers = await Promise.allSettled(calls);
  assert.equal(fullOnly.deps.money.batcher.batched - sent, ONE_BATCH, 'all of them went out as one batch');
  assert.equal(fullOnly.deps.money.batcher.fallbacks, 0, 'a refusal is an answer, not a failed batch');
  const codes = answers.map((a) => (a.status === 'fulfilled' ? 'ok' : isApiError(a.reason) ? a.reason.code : a.reason));
  assert.deepEqual(codes, [
    'quota_exceeded',
    'not_found',
    'bad_request',
    'cap_exceeded',
    'cap_exceeded',
    ...Array.from({ length: ONE_BATCH - 6 }, () => 'ok'),
    'ok',
  ]);
  const credits = await usual.client.credits({ workspaceId: rich });
  assert.equal(credits.allowanceSpentMillicredits, BigInt(ONE_BATCH - 6 + 2) * PAGE_MC, 'only the accepted charged');
  assert.equal((await usual.client.credits({ workspaceId: poor })).allowanceSpentMillicredits, 0n);
  // A retry (through the other server: this one would hold it for company) replays what the batch answered.
  const again = await usual.client.charge({
    workspaceId: rich,
    idempotencyKey: 'ok-0',
    capability: 'scrape',
    meters: page,
  });
  assert.deepEqual(again, (answers[5] as PromiseFulfilledResult<unknown>).value);
});

test("a workspace's calls keep the order they reached the ledger in, across batches", async () => {
  const money = usual.deps.money;
  const workspaces = [
    await account(usual, 'gc-order-1', 20n * PAGE_MC),
    await account(usual, 'gc-order-2', 20n * PAGE_MC),
  ];
  const at = () => ({ now: clock.now(), period: allowancePeriod(clock.now()) });
  // 30 holds a workspace, the two interleaved, over several turns of the event loop (so over
  // several batches): the allowance covers 20 of each, and exactly the first 20 must get one.
  const batchesBefore = money.batcher.sent.batches;
  const sent: Promise<string>[] = [];
  for (let i = 0; i < 30; i++) {
    for (const workspaceId of workspaces) {
      const key = `o-${i}`;
      const hold = {
        workspaceId,
        key,
        hash: key,
        capability: 'scrape',
        reference: '',
        amountMc: PAGE_MC,
        ttlSeconds: 600,
      };
      sent.push(money.authorize(hold, at()).then((a) => (isRefusal(a) ? a.error : 'granted')));
    }
    if (i % 4 === 3) await new Promise((resolve) => setImmediate(resolve));
  }
  const outcomes = await Promise.all(sent);
  assert.deepEqual(
    outcomes,
    Array.from({ length: 60 }, (_, n) => (n < 40 ? 'granted' : 'quota_exceeded')),
    'granted in the order sent, refused once the allowance ran out',
  );
  assert.ok(money.batcher.sent.batches - batchesBefore >= 2, 'the calls went out over several batches');
});
