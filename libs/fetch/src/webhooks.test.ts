// The retry policy: which answers are tried again, how long the wait grows, and that Retry-After is a floor.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffMs, MAX_ATTEMPTS, retryAfterMs, retryable } from './webhooks.js';

test('5xx, 429 and no answer are tried again; other answers are final', () => {
  for (const s of [0, 429, 500, 502, 503]) assert.equal(retryable(s), true, String(s));
  for (const s of [200, 400, 401, 403, 404, 410]) assert.equal(retryable(s), false, String(s));
  assert.equal(MAX_ATTEMPTS, 8);
});

test('the wait doubles to ten minutes with full jitter, and never comes before Retry-After', () => {
  assert.equal(
    backoffMs(1, undefined, () => 0.999),
    999,
  );
  assert.equal(
    backoffMs(4, undefined, () => 0.5),
    4_000,
  );
  assert.equal(
    backoffMs(30, undefined, () => 0.999),
    599_400,
  );
  assert.equal(
    backoffMs(1, 2_000, () => 0),
    2_000,
    'Retry-After is a floor',
  );
  assert.equal(retryAfterMs('2'), 2_000);
  assert.equal((retryAfterMs(new Date(Date.now() + 5_000).toUTCString()) as number) > 3_000, true);
  assert.equal(retryAfterMs('soon'), undefined);
  assert.equal(retryAfterMs(undefined), undefined);
});
