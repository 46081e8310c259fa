import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Batcher } from './batcher.js';

/** A sender that records its batches and answers each item doubled, or fails the odd ones when asked. */
function recorder(opts: { failOdd?: boolean; throwOnce?: Error; delayMs?: number } = {}) {
  const batches: number[][] = [];
  let toThrow = opts.throwOnce;
  const send = async (items: number[]): Promise<PromiseSettledResult<number>[]> => {
    batches.push(items);
    await sleep(opts.delayMs ?? 5);
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
  return { batches, send };
}

test('calls made in one turn leave as one batch, and each gets its own answer', async () => {
  const r = recorder();
  const batcher = new Batcher(r.send);
  const answers = await Promise.all([1, 2, 3].map((n) => batcher.call(n)));
  assert.deepEqual(answers, [2, 4, 6]);
  assert.deepEqual(r.batches, [[1, 2, 3]]);
});

test('calls made while a batch is out wait for it and leave together, at most maxBatch at a time', async () => {
  const r = recorder({ delayMs: 20 });
  const batcher = new Batcher(r.send, { maxInFlight: 1, maxBatch: 2 });
  const first = batcher.call(1);
  await sleep(5); // the first batch is out
  const later = [2, 3, 4].map((n) => batcher.call(n));
  assert.deepEqual(await Promise.all([first, ...later]), [2, 4, 6, 8]);
  assert.deepEqual(r.batches, [[1], [2, 3], [4]]);
  assert.deepEqual(batcher.sent, { batches: 3, items: 4 });
});

test('with two in flight, a second batch leaves without waiting for the first', async () => {
  const r = recorder({ delayMs: 30 });
  const batcher = new Batcher(r.send, { maxInFlight: 2, maxBatch: 64 });
  const first = batcher.call(1);
  await sleep(5);
  const second = batcher.call(2);
  await sleep(5);
  assert.equal(r.batches.length, 2, 'the second went out while the first was still out');
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
