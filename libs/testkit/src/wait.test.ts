import assert from 'node:assert/strict';
import { test } from 'node:test';
import { until } from './wait.js';

test('until returns once the check answers true', async () => {
  let checks = 0;
  await until('the third check', async () => ++checks === 3);
  assert.equal(checks, 3);
});

test('until names what it waited for when the time is up', async () => {
  await assert.rejects(
    until('a condition never met', async () => false, 300),
    {
      message: 'timed out waiting for: a condition never met',
    },
  );
});

test('a check that throws counts as not yet', async () => {
  let checks = 0;
  await until('the check to stop throwing', async () => {
    if (++checks < 2) throw new Error('not up yet');
    return true;
  });
  assert.equal(checks, 2);
});

test('a check may answer at once, looked at as often as the pace says', async () => {
  let checks = 0;
  const started = Date.now();
  await until('the fifth look', () => ++checks === 5, 5_000, 1);
  assert.equal(checks, 5);
  assert.ok(Date.now() - started < 1_000, 'five looks a millisecond apart, not 200 ms');
});
