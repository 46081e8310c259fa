import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyUses } from './key-uses.js';

/** A pool that records the keys written, failing the keys named in `failing`. */
function recordingPool(failing: Set<string> = new Set()) {
  const written: string[] = [];
  return {
    written,
    query: (q: { values: string[] }) => {
      const keyId = q.values[0] as string;
      written.push(keyId);
      return failing.has(keyId) ? Promise.reject(new Error('connection lost')) : Promise.resolve({ rowCount: 1 });
    },
  };
}

test('a key is written at most once a minute, each key on its own clock', () => {
  let now = 1_000_000;
  const pool = recordingPool();
  const uses = new KeyUses(pool as never, { warn: () => {} }, 60_000, () => now);
  uses.used('a');
  uses.used('a');
  uses.used('b');
  now += 59_999;
  uses.used('a');
  assert.deepEqual(pool.written, ['a', 'b']);
  now += 1;
  uses.used('a');
  uses.used('b');
  assert.deepEqual(pool.written, ['a', 'b', 'a', 'b']);
});

test('a failed write is logged, never thrown into the request', async () => {
  const warnings: unknown[] = [];
  const pool = recordingPool(new Set(['a']));
  const uses = new KeyUses(pool as never, { warn: (o: unknown) => warnings.push(o) });
  assert.doesNotThrow(() => uses.used('a'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(warnings.length, 1);
});
