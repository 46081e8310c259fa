import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allocate, type Source, spendingOrder } from './spending.js';

const now = new Date('2026-11-20T12:00:00Z');
const monthEnd = new Date('2026-12-01T00:00:00Z');
const at = (iso: string) => new Date(iso);
const allowance = (remaining: bigint): Source => ({
  grantId: null,
  lapsesAt: monthEnd,
  createdAt: at('2026-01-01T00:00:00Z'),
  remaining,
});
const grant = (
  id: string,
  remaining: bigint,
  lapsesAt: Date | null,
  createdAt = at('2026-11-01T00:00:00Z'),
): Source => ({
  grantId: id,
  lapsesAt,
  createdAt,
  remaining,
});

test('the allowance goes first when nothing lapses sooner', () => {
  const sources = [
    grant('purchased', 5_000n, null),
    grant('promo', 5_000n, at('2027-01-31T00:00:00Z')),
    allowance(3_000n),
  ];
  assert.deepEqual(allocate(sources, 4_000n, now), [
    { grantId: null, amount: 3_000n },
    { grantId: 'promo', amount: 1_000n },
  ]);
});

test('a grant lapsing before the month ends goes before the allowance', () => {
  const sources = [allowance(3_000n), grant('student', 2_000n, at('2026-11-25T00:00:00Z'))];
  assert.deepEqual(allocate(sources, 2_500n, now), [
    { grantId: 'student', amount: 2_000n },
    { grantId: null, amount: 500n },
  ]);
});

test('never-lapsing grants go last, oldest first', () => {
  const sources = [
    grant('newer', 1_000n, null, at('2026-11-10T00:00:00Z')),
    grant('older', 1_000n, null, at('2026-11-02T00:00:00Z')),
    allowance(0n),
  ];
  assert.deepEqual(
    spendingOrder(sources, now).map((s) => s.grantId),
    ['older', 'newer'],
  );
});

test('at the same lapse instant the allowance goes first, then the older grant', () => {
  const sources = [
    grant('b', 1n, monthEnd, at('2026-11-03T00:00:00Z')),
    grant('a', 1n, monthEnd, at('2026-11-02T00:00:00Z')),
    allowance(1n),
  ];
  assert.deepEqual(
    spendingOrder(sources, now).map((s) => s.grantId),
    [null, 'a', 'b'],
  );
});

test('lapsed and empty sources are skipped; the draws stop when the sources run out', () => {
  const sources = [
    grant('lapsed', 9_000n, at('2026-11-20T11:59:59Z')),
    grant('lapsing-now', 9_000n, now),
    grant('empty', 0n, null),
    allowance(700n),
  ];
  assert.deepEqual(allocate(sources, 1_000n, now), [{ grantId: null, amount: 700n }]);
  assert.deepEqual(allocate([], 1_000n, now), []);
});
