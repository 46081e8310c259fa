// Group commit: calls that arrive together share one transaction, answer as
// they would alone, fail alone, and two batchers never deadlock each other.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { priceUsage } from '@wap/billing';
import { allowancePeriod } from '../domain/period.js';
import { freshDatabase, TestClock, type TestDatabase } from '../test-support.js';
import { isRefusal } from './call.js';
import { LedgerDatabase } from './database.js';
import { MoneyStore } from './money.js';

let database: TestDatabase;
let dbs: LedgerDatabase[] = [];
const clock = new TestClock();
const at = () => ({ now: clock.now(), period: allowancePeriod(clock.now()) });
const oneAtATime = { maxInFlight: 1, maxBatch: 16 };

before(async () => {
  database = await freshDatabase();
  dbs = [new LedgerDatabase(database.url), new LedgerDatabase(database.url)];
});
after(async () => {
  await Promise.all(dbs.map((db) => db.$disconnect()));
  await database?.drop();
});

const authorize = (money: MoneyStore, workspaceId: string, key: string, amountMc: bigint) =>
  money.authorize({ workspaceId, key, hash: key, capability: 'crawl', reference: '', amountMc, ttlSeconds: 600 }, at());

test('calls arriving together are batched and answer as they would alone', async () => {
  const money = new MoneyStore(dbs[0]!.pool, oneAtATime);
  await money.ensureAccount('batch-ws', { open: { plan: 'free', monthlyMc: 1_000_000n, slots: 2 } }, at());
  const answers = await Promise.all(
    Array.from({ length: 60 }, (_, i) => authorize(money, 'batch-ws', `a${i}`, 20_000n)),
  );
  assert.ok(money.batcher.batched > 0, 'some went out together');
  const granted = answers.filter((a) => !isRefusal(a));
  const refused = answers.filter((a) => isRefusal(a));
  assert.equal(granted.length, 50, 'exactly what the allowance covers');
  for (const r of refused) assert.equal(isRefusal(r) && r.error, 'quota_exceeded');
  const again = await Promise.all(Array.from({ length: 60 }, (_, i) => authorize(money, 'batch-ws', `a${i}`, 20_000n)));
  assert.deepEqual(
    again.filter((a) => !isRefusal(a)),
    granted,
    'retries in a batch replay the first answers',
  );
  assert.equal(money.batcher.fallbacks, 0);
});

test('calls made in one turn leave as one batch, not the first ones alone', async () => {
  const money = new MoneyStore(dbs[0]!.pool, { maxInFlight: 2, maxBatch: 32 });
  await money.ensureAccount('turn-ws', { open: { plan: 'free', monthlyMc: 1_000_000n, slots: 2 } }, at());
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => authorize(money, 'turn-ws', `t${i}`, 1_000n)));
  assert.equal(answers.filter((a) => isRefusal(a)).length, 0);
  assert.equal(money.batcher.batched, 8, 'all eight in one batch (two would have gone alone before)');
});

test('a call that fails takes only itself down', async () => {
  const money = new MoneyStore(dbs[0]!.pool, oneAtATime);
  await money.ensureAccount('fail-ws', { open: { plan: 'free', monthlyMc: 1_000_000n, slots: 2 } }, at());
  const usage = priceUsage([{ meter: 'page_load', quantity: 1n }]);
  const calls = Array.from({ length: 10 }, (_, i) =>
    i === 5
      ? authorize(money, 'fail-ws', 'bad', 0n) // breaks holds_amount_check
      : money.charge(
          { workspaceId: 'fail-ws', key: `c${i}`, hash: `c${i}`, capability: 'scrape', reference: '', usage },
          at(),
        ),
  );
  const settled = await Promise.allSettled(calls);
  assert.equal(settled.filter((s) => s.status === 'rejected').length, 1);
  assert.match(String((settled[5] as PromiseRejectedResult).reason), /holds_amount_check/);
  assert.ok(money.batcher.fallbacks > 0, 'the batch was rolled back and run call by call');
  const { rows } = await dbs[0]!.pool.query(
    `SELECT "allowance_spent_mc" FROM "accounts" WHERE "workspace_id" = 'fail-ws'`,
  );
  assert.equal(BigInt(rows[0].allowance_spent_mc), 9_000n, 'each good call charged once');
});

test('two batchers crossing the same accounts in opposite orders never deadlock', async () => {
  const [a, b] = dbs.map((db) => new MoneyStore(db.pool, { maxInFlight: 2, maxBatch: 16 }));
  const workspaces = ['x-1', 'x-2', 'x-3', 'x-4'];
  for (const ws of workspaces) {
    await a!.ensureAccount(ws, { open: { plan: 'scale', monthlyMc: 250_000_000n, slots: 100 } }, at());
  }
  const usage = priceUsage([{ meter: 'page_load', quantity: 1n }]);
  const burst = (money: MoneyStore, order: string[], tag: string) =>
    Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        money.charge(
          {
            workspaceId: order[i % order.length]!,
            key: `${tag}${i}`,
            hash: tag,
            capability: 'scrape',
            reference: '',
            usage,
          },
          at(),
        ),
      ),
    );
  await Promise.all([burst(a!, workspaces, 'fwd'), burst(b!, [...workspaces].reverse(), 'rev')]);
  assert.ok(a!.batcher.batched > 0 && b!.batcher.batched > 0);
  assert.equal(a!.batcher.fallbacks + b!.batcher.fallbacks, 0, 'no batch failed (a deadlock would)');
  const { rows } = await dbs[0]!.pool.query(
    `SELECT sum("allowance_spent_mc")::text AS s FROM "accounts" WHERE "workspace_id" LIKE 'x-%'`,
  );
  assert.equal(BigInt(rows[0].s), 400_000n);
});
