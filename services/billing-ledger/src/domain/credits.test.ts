import assert from 'node:assert/strict';
import { test } from 'node:test';
import { creditsView } from './credits.js';

const now = new Date('2026-11-20T12:00:00Z');
const account = {
  plan: 'builder',
  monthlyAllowance: 10_000_000n,
  allowancePeriodStart: new Date('2026-11-01T00:00:00Z'),
  allowance: 10_000_000n,
  allowanceSpent: 4_000_000n,
};
const grant = (id: string, amount: bigint, spent: bigint, lapsesAt: Date | null) => ({
  id,
  kind: 'promotional',
  amount,
  spent,
  lapsesAt,
  createdAt: new Date('2026-11-02T00:00:00Z'),
});

test('available is allowance left plus live grants left minus holds; lapsed remainders count for nothing', () => {
  const view = creditsView(
    account,
    [grant('live', 5_000n, 1_000n, null), grant('lapsed', 7_000n, 2_000n, new Date('2026-11-10T00:00:00Z'))],
    500n,
    now,
  );
  assert.deepEqual(
    view.grants.map((g) => [g.id, g.remaining]),
    [
      ['live', 4_000n],
      ['lapsed', 0n],
    ],
  );
  assert.deepEqual([view.granted, view.spent, view.remaining], [12_000n, 3_000n, 4_000n]);
  assert.equal(view.available, 6_000_000n + 4_000n - 500n);
  assert.equal(view.allowanceResetsAt.toISOString(), '2026-12-01T00:00:00.000Z');
});

test('an account untouched since last month shows a fresh allowance', () => {
  const view = creditsView({ ...account, allowancePeriodStart: new Date('2026-10-01T00:00:00Z') }, [], 0n, now);
  assert.deepEqual([view.allowance, view.allowanceSpent, view.available], [10_000_000n, 0n, 10_000_000n]);
});

test('available never shows below zero', () => {
  assert.equal(creditsView({ ...account, allowanceSpent: 10_000_000n }, [], 1n, now).available, 0n);
});
