import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseUidRange } from './uid-range.js';

test('a range of uids is read strictly; off means none', () => {
  assert.deepEqual(parseUidRange('200000-209999'), { first: 200_000, last: 209_999 });
  assert.equal(parseUidRange('off'), undefined);
  for (const bad of ['0-10', '5000-4000', 'x', '200000']) assert.throws(() => parseUidRange(bad), /range/, bad);
});
