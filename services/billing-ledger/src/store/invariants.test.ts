// What the database itself guarantees, whatever the service does: immutable
// history, balances that cannot go below zero, holds that cannot overspend,
// the spending order of docs/billing.md, and a sweep replicas can share.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { priceUsage } from '@wap/billing';
import pg from 'pg';
import { allowancePeriod } from '../domain/period.js';
import { allocate, type Source } from '../domain/spending.js';
import { freshDatabase, TestClock, type TestDatabase } from '../test-support.js';
import { LedgerDatabase } from './database.js';
import { MoneyStore } from './money.js';

let database: TestDatabase;
let db: LedgerDatabase;
let money: MoneyStore;
const clock = new TestClock();
const at = () => ({ now: clock.now(), period: allowancePeriod(clock.now()) });
const sql = (text: string, values: unknown[] = []) => db.pool.query(text, values);

before(async () => {
  database = await freshDatabase();
  db = new LedgerDatabase(database.url);
  money = new MoneyStore(db.pool);
});
after(async () => {
  await db?.$disconnect();
  await database?.drop();
});

async function account(workspaceId: string, plan = 'free', allowanceMc = 1_000_000n) {
  await money.ensureAccount(workspaceId, { open: { plan, monthlyMc: allowanceMc, slots: 2 } }, at());
}

async function refused(text: string, pattern: RegExp) {
  await assert.rejects(sql(text), pattern, text);
}

test('entries and usage are never updated or deleted', async () => {
  await account('ws-immutable');
  await money.charge(
    {
      workspaceId: 'ws-immutable',
      key: 'k1',
      hash: 'h1',
      capability: 'scrape',
      reference: '',
      usage: priceUsage([{ meter: 'page_load', quantity: 1n }]),
    },
    at(),
  );
  for (const [table, column] of [
    ['entries', 'amount_mc'],
    ['usage_records', 'charged_mc'],
    ['usage_meters', 'mc'],
  ]) {
    await refused(`UPDATE "${table}" SET "${column}" = "${column}"`, /immutable/);
    await refused(`DELETE FROM "${table}"`, /immutable/);
  }
  await refused('TRUNCATE "entries"', /immutable/);
  await refused(`UPDATE "idempotency_records" SET "response" = '{}'`, /immutable/);
  const { rows } = await sql('SELECT count(*)::int AS n FROM "entries" WHERE "workspace_id" = $1', ['ws-immutable']);
  assert.equal(rows[0].n, 1);
});

test('constraints refuse an overspent source, an overspent hold and an unknown status', async () => {
  await account('ws-checks');
  await money.grant(
    {
      workspaceId: 'ws-checks',
      key: 'g',
      hash: 'g',
      kind: 'promotional',
      amountMc: 5_000n,
      lapsesAt: null,
      note: '',
    },
    at(),
  );
  const hold = await money.authorize(
    {
      workspaceId: 'ws-checks',
      key: 'a',
      hash: 'a',
      capability: 'crawl',
      reference: '',
      amountMc: 2_000n,
      ttlSeconds: 60,
    },
    at(),
  );
  assert.ok('hold_id' in hold);
  await refused(`UPDATE "grants" SET "spent_mc" = "amount_mc" + 1`, /grants_spent_check/);
  await refused(`UPDATE "accounts" SET "allowance_spent_mc" = "allowance_mc" + 1`, /accounts_allowance_check/);
  await refused(`UPDATE "accounts" SET "allowance_spent_mc" = -1`, /accounts_allowance_check/);
  await refused(`UPDATE "holds" SET "settled_mc" = "amount_mc" + 1`, /holds_settled_check/);
  await refused(`UPDATE "holds" SET "status" = 'settled', "resolved_at" = now()`, /holds_full_check/);
  await refused(`UPDATE "holds" SET "status" = 'expired'`, /holds_resolution_check/);
  await refused(`UPDATE "holds" SET "status" = 'voided', "resolved_at" = now()`, /holds_released_check/);
  await refused(`UPDATE "holds" SET "status" = 'gone', "resolved_at" = now()`, /invalid input value for enum/);
  await refused(
    `INSERT INTO "idempotency_records" VALUES ('ws-checks', 'a', 'authorize', 'x', '{}', now())`,
    /idempotency_records_pkey/,
  );
});

test('the SQL spends in the order src/domain/spending.ts states, on random sources', async () => {
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  for (let round = 0; round < 25; round++) {
    const workspaceId = `ws-order-${round}`;
    await account(workspaceId, 'free', BigInt(random(3)) * 500n);
    const now = clock.now();
    const sources: Source[] = [];
    const { rows: acc } = await sql('SELECT "allowance_mc", "created_at" FROM "accounts" WHERE "workspace_id" = $1', [
      workspaceId,
    ]);
    sources.push({
      grantId: null,
      lapsesAt: allowancePeriod(now).end,
      createdAt: acc[0].created_at,
      remaining: BigInt(acc[0].allowance_mc),
    });
    for (let g = 0, n = 1 + random(5); g < n; g++) {
      // Lapses within the hour, at the month end, long after, or never; some share an instant.
      const choice = random(4);
      const lapsesAt =
        choice === 0
          ? new Date(now.getTime() + (1 + random(2)) * 3_600_000)
          : choice === 1
            ? allowancePeriod(now).end
            : choice === 2
              ? new Date(now.getTime() + 90 * 86_400_000)
              : null;
      const amountMc = BigInt(1 + random(3_000));
      const answer = await money.grant(
        { workspaceId, key: `g${g}`, hash: `g${g}`, kind: 'purchased', amountMc, lapsesAt, note: '' },
        at(),
      );
      assert.ok('grant_id' in answer);
      sources.push({ grantId: answer.grant_id, lapsesAt, createdAt: now, remaining: amountMc });
    }
    const total = sources.reduce((sum, s) => sum + s.remaining, 0n);
    const charge = BigInt(random(Number(total) + 500));
    const usage = { meters: [{ meter: 'tokens' as const, quantity: 1n, millicredits: charge }], millicredits: charge };
    await money.charge({ workspaceId, key: 'c', hash: 'c', capability: 'agent', reference: '', usage }, at());
    const { rows } = await sql(
      `SELECT "grant_id", "amount_mc" FROM "entries" WHERE "workspace_id" = $1 AND "kind" = 'spend' ORDER BY "id"`,
      [workspaceId],
    );
    const drawn = rows.map((r) => ({ grantId: r.grant_id as string | null, amount: BigInt(r.amount_mc) }));
    assert.deepEqual(drawn, allocate(sources, charge, now), `round ${round}`);
    clock.advance(1);
  }
});

test('the sweep expires due holds once, and skips a hold another transaction holds', async () => {
  await account('ws-sweep');
  const holds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const answer = await money.authorize(
      {
        workspaceId: 'ws-sweep',
        key: `s${i}`,
        hash: `s${i}`,
        capability: 'crawl',
        reference: '',
        amountMc: 1_000n,
        ttlSeconds: 10,
      },
      at(),
    );
    assert.ok('hold_id' in answer);
    holds.push(answer.hold_id);
  }
  clock.advance(11);
  const other = new pg.Client({ connectionString: database.url });
  await other.connect();
  try {
    await other.query('BEGIN');
    await other.query('SELECT 1 FROM "holds" WHERE "id" = $1 FOR UPDATE', [holds[0]]);
    assert.equal(await money.sweep(clock.now(), 100), 2, 'the locked hold is left for a later pass');
    await other.query('COMMIT');
  } finally {
    await other.end();
  }
  assert.equal(await money.sweep(clock.now(), 100), 1);
  assert.equal(await money.sweep(clock.now(), 100), 0);
  const { rows } = await sql(`SELECT DISTINCT "status" FROM "holds" WHERE "workspace_id" = 'ws-sweep'`);
  assert.deepEqual(
    rows.map((r) => r.status),
    ['expired'],
  );
  const voided = await money.void(holds[1]!, at());
  assert.deepEqual(voided, { released: 0, settled: 0, status: 'expired' });
});

test('a usage id ties each spend entry to its usage row', async () => {
  const { rows } = await sql(
    `SELECT count(*)::int AS n FROM "entries" e LEFT JOIN "usage_records" u ON u."id" = e."usage_id"
      WHERE e."kind" = 'spend' AND u."id" IS NULL`,
  );
  assert.equal(rows[0].n, 0);
});
