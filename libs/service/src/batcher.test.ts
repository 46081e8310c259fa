import assert from 'node:assert/strict';
import { test } from 'node:test';
import { until } from '@wap/testkit';
import { Batcher } from './batcher.js';

/**
 * A sender that records its batches and answers each item doubled, or fails the odd ones when asked.
 * `held`: each batch stays out until the test calls `answer()` (oldest first).
 */
function recorder(opts: { failOdd?: boolean; throwOnce?: Error; held?: boolean } = {}) {
  const batches: number[][] = [];
  const out: (() => void)[] = [];
  let toThrow = opts.throwOnce;
  const send = async (items: number[]): Promise<PromiseSettledResult<number>[]> => {
    batches.push(items);
    await new Promise<void>((resolve) => (opts.held ? out.push(resolve) : setImmediate(resolve)));
    if (toThrow) {
      const err = toThrow;
      toThrow = undefined;
      throw err;
    }
    return items.map((n) =>
      opts.failOdd && n % 2 === 1
        ? { status: 'rejected', reason: new Error(`odd ${n}`) }
        : { status: 'fulfilled', value: n * 2 },
    );
  };
  /** Answers the oldest batch still out. */
  const answer = () => out.shift()?.();
  return { batches, send, answer };
}

/** Polls `check` until it holds, every 1 ms; throws after `timeoutMs` (a ceiling, not a pace). */
const waitFor = (what: string, check: () => boolean, timeoutMs = 5_000) => until(what, check, timeoutMs, 1);

test('calls made in one turn leave as one batch, and each gets its own answer', async () => {
  const r = recorder();
  const batcher = new Batcher(r.send);
  const answers = await Promise.all([1, 2, 3].map((n) => batcher.call(n)));
  assert.deepEqual(answers, [2, 4, 6]);
  assert.deepEqual(r.batches, [[1, 2, 3]]);
});

test('calls made while a batch is out wait for it and leave together, at most maxBatch at a time', async () => {
  const r = recorder({ held: true });
  const batcher = new Batcher(r.send, { maxInFlight: 1, maxBatch: 2 });
  const first = batcher.call(1);
  await waitFor('the first batch is out', () => r.batches.length === 1);
  const later = [2, 3, 4].map((n) => batcher.call(n));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(r.batches, [[1]], 'the others wait while the first is out');
  r.answer();
  await waitFor('the second batch is out', () => r.batches.length === 2);
  r.answer();
  await waitFor('the third batch is out', () => r.batches.length === 3);
  r.answer();
  assert.deepEqual(await Promise.all([first, ...later]), [2, 4, 6, 8]);
  assert.deepEqual(r.batches, [[1], [2, 3], [4]]);
  assert.deepEqual(batcher.sent, { batches: 3, items: 4 });
});

test('with two in flight, a second batch leaves without waiting for the first', async () => {
  const r = recorder({ held: true });
  const batcher = new Batcher(r.send, { maxInFlight: 2, maxBatch: 64 });
  const first = batcher.call(1);
  await waitFor('the first batch is out', () => r.batches.length === 1);
  const second = batcher.call(2);
  // The first is held until answered below: only a second batch in flight can get the 2 out.
  await waitFor('the second batch is out while the first still is', () => r.batches.length === 2);
  r.answer();
  r.answer();
  assert.deepEqual(await Promise.all([first, second]), [2, 4]);
});

test('one item refused fails alone; a failed batch fails each of its items and the next batch still goes', async () => {
  const odd = recorder({ failOdd: true });
  const batcher = new Batcher(odd.send);
  const results = await Promise.allSettled([1, 2].map((n) => batcher.call(n)));
  assert.equal(results[0]?.status, 'rejected');
  assert.match(String((results[0] as PromiseRejectedResult).reason), /odd 1/);
  assert.deepEqual(results[1], { status: 'fulfilled', value: 4 });

  const down = recorder({ throwOnce: new Error('connection lost') });
  const b2 = new Batcher(down.send);
  const failed = await Promise.allSettled([5, 6].map((n) => b2.call(n)));
  assert.deepEqual(
    failed.map((f) => (f.status === 'rejected' ? (f.reason as Error).message : f.value)),
    ['connection lost', 'connection lost'],
  );
  assert.equal(await b2.call(7), 14);
});

test('a batch answered short rejects the items it left out', async () => {
  const batcher = new Batcher<number, number>(async (items) => [{ status: 'fulfilled', value: items[0]! }]);
  const results = await Promise.allSettled([1, 2].map((n) => batcher.call(n)));
  assert.deepEqual(results[0], { status: 'fulfilled', value: 1 });
  assert.equal(results[1]?.status, 'rejected');
});

test('with gatherMs, a quiet caller, or one whose calls come one at a time, never waits', async () => {
  const r = recorder();
  // A window longer than any test: a call that waited for it would time the test out.
  const batcher = new Batcher(r.send, { maxInFlight: 1, maxBatch: 64, gatherMs: 60_000 });
  for (const n of [1, 2, 3]) assert.equal(await batcher.call(n), n * 2);
  assert.deepEqual(r.batches, [[1], [2], [3]]);
});

test('with gatherMs, a busy caller waits for as much company as its last batch had', async () => {
  const r = recorder();
  const batcher = new Batcher(r.send, { maxInFlight: 1, maxBatch: 8, gatherMs: 60_000 });
  // Three calls in one turn leave together: the caller is busy from then on.
  assert.deepEqual(await Promise.all([1, 2, 3].map((n) => batcher.call(n))), [2, 4, 6]);
  const busy = [batcher.call(4)];
  await new Promise((resolve) => setImmediate(resolve));
  busy.push(batcher.call(5));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(r.batches, [[1, 2, 3]], 'calls made a turn apart wait for others');
  busy.push(batcher.call(6));
  assert.deepEqual(await Promise.all(busy), [8, 10, 12]);
  assert.deepEqual(
    r.batches,
    [
      [1, 2, 3],
      [4, 5, 6],
    ],
    'and leave as soon as three have come',
  );
});

test('with gatherMs, a busy batch leaves when its window closes, not before', async () => {
  const r = recorder();
  const batcher = new Batcher(r.send, { maxInFlight: 1, maxBatch: 64, gatherMs: 300 });
  await Promise.all([batcher.call(1), batcher.call(2)]);
  const started = performance.now();
  const third = batcher.call(3);
  await Promise.resolve();
  assert.deepEqual(r.batches, [[1, 2]], 'held for company');
  assert.equal(await third, 6);
  assert.ok(performance.now() - started >= 299, 'it waited out the window');
  assert.deepEqual(r.batches, [[1, 2], [3]]);
});
