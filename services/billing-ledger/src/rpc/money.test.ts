// The money RPCs through a real gRPC server against a real database, one
// behaviour per test, on a clock the test moves.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { isApiError } from '@wap/errors';
import { ledger } from '@wap/proto';
import { freshDatabase, type InProcessLedger, serveLedger, TestClock, type TestDatabase } from '../test-support.js';

const { Meter, Plan, GrantKind } = ledger;
const page = (n: bigint) => [{ meter: Meter.PAGE_LOAD, quantity: n }];
const pageMeters = page;

let database: TestDatabase;
let ledgerServer: InProcessLedger;
const clock = new TestClock();
let seq = 0;
const ws = () => `ws-money-${++seq}`;
const key = () => `key-${++seq}`;

before(async () => {
  database = await freshDatabase();
  ledgerServer = await serveLedger(database.url, clock.now);
});
after(async () => {
  await ledgerServer?.close();
  await database?.drop();
});

async function rejection(promise: Promise<unknown>) {
  const err = await promise.then(
    () => assert.fail('expected the call to fail'),
    (e: unknown) => e,
  );
  assert.ok(isApiError(err), String(err));
  return err;
}

async function account(plan = Plan.FREE) {
  const workspaceId = ws();
  await ledgerServer.client.ensureAccount({ workspaceId, plan });
  return workspaceId;
}

describe('EnsureAccount', () => {
  test('opens on a plan and moves between plans', async () => {
    const c = ledgerServer.client;
    const workspaceId = ws();
    const free = await c.ensureAccount({ workspaceId });
    assert.equal(free.plan, Plan.FREE);
    assert.equal(free.concurrentBrowsers, 2);
    assert.equal(free.monthlyAllowanceMillicredits, 1_000_000n);
    const pro = await c.ensureAccount({ workspaceId, plan: Plan.PRO });
    assert.deepEqual([pro.plan, pro.concurrentBrowsers, pro.monthlyAllowanceMillicredits], [Plan.PRO, 25, 50_000_000n]);
    const again = await c.ensureAccount({ workspaceId });
    assert.equal(again.plan, Plan.PRO, 'no plan named keeps the plan');
    const credits = await c.credits({ workspaceId });
    assert.equal(credits.allowanceMillicredits, 50_000_000n);
    assert.equal(credits.availableMillicredits, 50_000_000n);
  });
  test("a custom monthly allowance replaces the plan's until a plan is named without one", async () => {
    const c = ledgerServer.client;
    const workspaceId = ws();
    const opened = await c.ensureAccount({ workspaceId, plan: Plan.BUILDER, monthlyAllowanceMillicredits: 3_000n });
    assert.deepEqual(
      [opened.plan, opened.concurrentBrowsers, opened.monthlyAllowanceMillicredits],
      [Plan.BUILDER, 5, 3_000n],
    );
    const kept = await c.ensureAccount({ workspaceId });
    assert.equal(kept.monthlyAllowanceMillicredits, 3_000n, 'no plan and no allowance named: nothing changes');
    const custom = await c.ensureAccount({ workspaceId, monthlyAllowanceMillicredits: 0n });
    assert.deepEqual([custom.plan, custom.monthlyAllowanceMillicredits], [Plan.BUILDER, 0n], 'the plan stays');
    assert.equal((await c.credits({ workspaceId })).availableMillicredits, 0n);
    const own = await c.ensureAccount({ workspaceId, plan: Plan.BUILDER });
    assert.equal(own.monthlyAllowanceMillicredits, 10_000_000n, "the plan's own allowance again");
  });

  test('three credits pay for three pages; the fourth is refused and charges nothing', async () => {
    const c = ledgerServer.client;
    const workspaceId = ws();
    await c.ensureAccount({ workspaceId, plan: Plan.FREE, monthlyAllowanceMillicredits: 3_000n });
    const page = async (n: number) => {
      const { holdId } = await c.authorize({
        workspaceId,
        idempotencyKey: `scrape:${n}:hold`,
        capability: 'scrape',
        millicredits: 1_000n,
        ttlSeconds: 300,
      });
      const settled = await c.settle({ holdId, idempotencyKey: `scrape:${n}:settle`, meters: pageMeters(1n) });
      await c.void({ holdId });
      return settled.usage?.millicredits;
    };
    for (const n of [1, 2, 3]) assert.equal(await page(n), 1_000n);
    const err = await rejection(page(4));
    assert.equal(err.code, 'quota_exceeded');
    assert.deepEqual(err.details, { needed: 1, available: 0 });
    const credits = await c.credits({ workspaceId });
    assert.deepEqual([credits.allowanceSpentMillicredits, credits.heldMillicredits], [3_000n, 0n]);
    const usage = await c.usage({ workspaceId });
    assert.equal(usage.total?.millicredits, 3_000n);
  });
});

describe('Authorize, Settle, Void', () => {
  test('a hold reserves, settles in parts, and voids the rest', async () => {
    const c = ledgerServer.client;
    const workspaceId = await account();
    const hold = await c.authorize({
      workspaceId,
      idempotencyKey: key(),
      capability: 'crawl',
      millicredits: 5_000n,
      reference: 'crawl-1',
    });
    assert.equal((await c.credits({ workspaceId })).availableMillicredits, 995_000n);
    const first = await c.settle({ holdId: hold.holdId, idempotencyKey: key(), meters: page(2n) });
    assert.equal(first.usage?.millicredits, 2_000n);
    assert.equal(first.holdRemainingMillicredits, 3_000n);
    const voided = await c.void({ holdId: hold.holdId });
    assert.deepEqual([voided.releasedMillicredits, voided.settledMillicredits], [3_000n, 2_000n]);
    const twice = await c.void({ holdId: hold.holdId });
    assert.deepEqual([twice.releasedMillicredits, twice.settledMillicredits], [3_000n, 2_000n]);
    const credits = await c.credits({ workspaceId });
    assert.equal(credits.availableMillicredits, 998_000n);
    assert.equal(credits.allowanceSpentMillicredits, 2_000n);
    assert.equal(credits.heldMillicredits, 0n);
    const err = await rejection(c.settle({ holdId: hold.holdId, idempotencyKey: key(), meters: page(1n) }));
    assert.equal(err.code, 'cap_exceeded', 'a resolved hold takes no more');
  });

  test('a settle beyond the hold is refused whole', async () => {
    const c = ledgerServer.client;
    const workspaceId = await account();
    const { holdId } = await c.authorize({
      workspaceId,
      idempotencyKey: key(),
      capability: 'scrape',
      millicredits: 1_500n,
    });
    const err = await rejection(c.settle({ holdId, idempotencyKey: key(), meters: page(2n) }));
    assert.equal(err.code, 'cap_exceeded');
    assert.deepEqual(err.details, { cap: 1, spent: 0, needed: 2 });
    const ok = await c.settle({ holdId, idempotencyKey: key(), meters: page(1n) });
    assert.equal(ok.holdRemainingMillicredits, 500n);
  });

  test('SettleBatch settles each as Settle alone would, in order, each with its own answer or refusal', async () => {
    const c = ledgerServer.client;
    const workspaceId = await account();
    const { holdId } = await c.authorize({
      workspaceId,
      idempotencyKey: key(),
      capability: 'crawl',
      millicredits: 3_000n,
    });
    const [k1, k2, k3] = [key(), key(), key()];
    const { outcomes } = await c.settleBatch({
      settles: [
        { holdId, idempotencyKey: k1, meters: page(1n) },
        { holdId, idempotencyKey: k2, meters: page(5n) }, // beyond the hold: refused alone
        { holdId, idempotencyKey: k1, meters: page(1n) }, // a retry of the first: charged once
        { holdId, idempotencyKey: k3, meters: [] }, // bad request
        { holdId, idempotencyKey: key(), meters: page(2n) },
      ],
    });
    assert.deepEqual(
      outcomes.map((o) => (o.outcome.case === 'settled' ? o.outcome.value.usage?.millicredits : o.outcome.value?.code)),
      [1_000n, 'cap_exceeded', 1_000n, 'bad_request', 2_000n],
    );
    const refused = outcomes[1]?.outcome;
    assert.ok(refused?.case === 'error');
    assert.deepEqual(JSON.parse(refused.value.detailsJson), { cap: 3, spent: 1, needed: 5 });
    const voided = await c.void({ holdId });
    assert.deepEqual([voided.releasedMillicredits, voided.settledMillicredits], [0n, 3_000n], 'charged 1 + 2, once');
    const usage = await c.usage({ workspaceId });
    assert.equal(usage.total?.millicredits, 3_000n, 'usage agrees with the charges');
    const tooMany = await rejection(
      c.settleBatch({
        settles: Array.from({ length: 257 }, () => ({ holdId, idempotencyKey: key(), meters: page(1n) })),
      }),
    );
    assert.equal(tooMany.code, 'bad_request');
  });

  test('a settle of the whole hold resolves it', async () => {
    const c = ledgerServer.client;
    const workspaceId = await account();
    const { holdId } = await c.authorize({
      workspaceId,
      idempotencyKey: key(),
      capability: 'scrape',
      millicredits: 1_000n,
    });
    await c.settle({ holdId, idempotencyKey: key(), meters: page(1n) });
    const voided = await c.void({ holdId });
    assert.deepEqual([voided.releasedMillicredits, voided.settledMillicredits], [0n, 1_000n]);
  });

  test('without the balance, Authorize answers quota_exceeded and holds nothing', async () => {
    const c = ledgerServer.client;
    const workspaceId = await account();
    const err = await rejection(
      c.authorize({ workspaceId, idempotencyKey: key(), capability: 'agent', millicredits: 1_000_500n }),
    );
    assert.equal(err.code, 'quota_exceeded');
    assert.equal(err.status, 402);
    assert.deepEqual(err.details, { needed: 1001, available: 1000 });
    assert.equal((await c.credits({ workspaceId })).heldMillicredits, 0n);
  });

  test('a hold expires by itself and Void after expiry releases nothing', async () => {
    const c = ledgerServer.client;
    const workspaceId = await account();
    const { holdId, expiresAt } = await c.authorize({
      workspaceId,
      idempotencyKey: key(),
      capability: 'agent',
      millicredits: 900_000n,
      ttlSeconds: 30,
    });
    assert.equal(Number(expiresAt?.seconds) * 1000, clock.now().getTime() + 30_000);
    assert.equal((await c.credits({ workspaceId })).availableMillicredits, 100_000n);
    clock.advance(31);
    assert.equal((await c.credits({ workspaceId })).availableMillicredits, 1_000_000n, 'released at read time');
    const err = await rejection(c.settle({ holdId, idempotencyKey: key(), meters: page(1n) }));
    assert.equal(err.code, 'cap_exceeded');
    const voided = await c.void({ holdId });
    assert.deepEqual([voided.releasedMillicredits, voided.settledMillicredits], [0n, 0n]);
  });

  test('unknown holds and accounts answer not_found', async () => {
    const c = ledgerServer.client;
    for (const call of [
      () => c.settle({ holdId: '00000000-0000-4000-8000-000000000000', idempotencyKey: key(), meters: page(1n) }),
      () => c.void({ holdId: 'not-a-uuid' }),
      () => c.authorize({ workspaceId: 'nobody', idempotencyKey: key(), capability: 'scrape', millicredits: 1n }),
      () => c.credits({ workspaceId: 'nobody' }),
    ]) {
      assert.equal((await rejection(call())).code, 'not_found');
    }
  });

  test('malformed requests answer bad_request naming each field', async () => {
    const err = await rejection(
      ledgerServer.client.authorize({ workspaceId: '', idempotencyKey: '', capability: 'x', millicredits: -1n }),
    );
    assert.equal(err.code, 'bad_request');
    const paths = (err.details?.issues as { path: string }[] | undefined)?.map((i) => i.path);
    assert.deepEqual(paths, ['workspace_id', 'idempotency_key', 'millicredits']);
  });
});

describe('idempotency', () => {
  test('the same key twice charges once and answers the same', async () => {
    const c = ledgerServer.client;
    const workspaceId = await account();
    const authKey = key();
    const hold = await c.authorize({
      workspaceId,
      idempotencyKey: authKey,
      capability: 'crawl',
      millicredits: 10_000n,
    });
    const again = await c.authorize({
      workspaceId,
      idempotencyKey: authKey,
      capability: 'crawl',
      millicredits: 10_000n,
    });
    assert.equal(again.holdId, hold.holdId);
    const settleKey = key();
    const request = { holdId: hold.holdId, idempotencyKey: settleKey, meters: page(3n) };
    const answers = await Promise.all([c.settle(request), c.settle(request), c.settle(request)]);
    for (const answer of answers) assert.deepEqual(answer, answers[0]);
    assert.equal((await c.credits({ workspaceId })).allowanceSpentMillicredits, 3_000n);
  });

  test('a key reused with a different request is refused', async () => {
    const c = ledgerServer.client;
    const workspaceId = await account();
    const k = key();
    await c.charge({ workspaceId, idempotencyKey: k, capability: 'scrape', meters: page(1n) });
    const err = await rejection(c.charge({ workspaceId, idempotencyKey: k, capability: 'scrape', meters: page(2n) }));
    assert.equal(err.code, 'bad_request');
    const other = await rejection(
      c.authorize({ workspaceId, idempotencyKey: k, capability: 'scrape', millicredits: 1n }),
    );
    assert.equal(other.code, 'bad_request');
    assert.equal((await c.credits({ workspaceId })).allowanceSpentMillicredits, 1_000n);
  });
});

describe('Charge', () => {
  test('charges at most what is available and records the shortfall', async () => {
    const c = ledgerServer.client;
    const workspaceId = await account();
    await c.authorize({ workspaceId, idempotencyKey: key(), capability: 'agent', millicredits: 400_000n });
    const charged = await c.charge({
      workspaceId,
      idempotencyKey: key(),
      capability: 'agent',
      meters: [{ meter: Meter.AGENT_SECONDS, quantity: 9_000n }], // 750 credits
    });
    assert.equal(charged.usage?.meters[0]?.millicredits, 750_000n, 'the price of the work');
    assert.equal(charged.usage?.millicredits, 600_000n, 'what the balance could pay');
    const credits = await c.credits({ workspaceId });
    assert.equal(credits.availableMillicredits, 0n);
    assert.equal(credits.heldMillicredits, 400_000n, 'a charge never takes what a hold reserved');
  });
});

describe('Grants and spending order', () => {
  test('whatever lapses first is spent first; Credits shows grants, not the allowance', async () => {
    const c = ledgerServer.client;
    const workspaceId = await account();
    const now = clock.now().getTime();
    const soon = await c.grant({
      workspaceId,
      idempotencyKey: key(),
      kind: GrantKind.PROMOTIONAL,
      millicredits: 2_000n,
      lapsesAt: timestampFromMs(now + 3_600_000),
    });
    const never = await c.grant({
      workspaceId,
      idempotencyKey: key(),
      kind: GrantKind.PURCHASED,
      millicredits: 5_000n,
    });
    await c.charge({ workspaceId, idempotencyKey: key(), capability: 'scrape', meters: page(3n) });
    let credits = await c.credits({ workspaceId });
    const byId = new Map(credits.grants.map((g) => [g.grantId, g]));
    assert.equal(byId.get(soon.grantId)?.spentMillicredits, 2_000n, 'the grant lapsing first went first');
    assert.equal(credits.allowanceSpentMillicredits, 1_000n, 'then the allowance, lapsing at month end');
    assert.equal(byId.get(never.grantId)?.spentMillicredits, 0n, 'never-lapsing credits last');
    assert.deepEqual(
      [credits.grantedMillicredits, credits.spentMillicredits, credits.remainingMillicredits],
      [7_000n, 2_000n, 5_000n],
    );
    clock.advance(3_601);
    credits = await c.credits({ workspaceId });
    assert.equal(credits.grants.find((g) => g.grantId === soon.grantId)?.remainingMillicredits, 0n);
  });

  test('a new month brings a fresh allowance', async () => {
    const c = ledgerServer.client;
    const workspaceId = await account();
    await c.charge({ workspaceId, idempotencyKey: key(), capability: 'scrape', meters: page(1_000n) });
    assert.equal((await c.credits({ workspaceId })).availableMillicredits, 0n);
    const resetsAt = (await c.credits({ workspaceId })).allowanceResetsAt;
    clock.advance(Number(resetsAt?.seconds) - clock.now().getTime() / 1000);
    const credits = await c.credits({ workspaceId });
    assert.deepEqual([credits.allowanceSpentMillicredits, credits.availableMillicredits], [0n, 1_000_000n]);
    await c.charge({ workspaceId, idempotencyKey: key(), capability: 'scrape', meters: page(1n) });
    assert.equal((await c.credits({ workspaceId })).allowanceSpentMillicredits, 1_000n);
  });
});
