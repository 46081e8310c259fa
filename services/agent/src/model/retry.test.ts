import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffMs, redact, retryAfterMs } from './retry.js';

test('Retry-After as seconds, an HTTP date, or OpenAI milliseconds', () => {
  const now = Date.parse('2026-11-26T12:00:00Z');
  const after = (headers: Record<string, string>) => retryAfterMs(new Headers(headers), now);
  assert.equal(after({}), undefined);
  assert.equal(after({ 'retry-after': '3' }), 3000);
  assert.equal(after({ 'retry-after': '0.5' }), 500);
  assert.equal(after({ 'retry-after': 'Thu, 26 Nov 2026 12:00:07 GMT' }), 7000);
  assert.equal(after({ 'retry-after': 'Thu, 26 Nov 2026 11:00:00 GMT' }), 0);
  assert.equal(after({ 'retry-after': 'soon' }), undefined);
  assert.equal(after({ 'retry-after': '3', 'retry-after-ms': '250' }), 250);
});

test('backoff: jittered under a doubling ceiling, never below the Retry-After, never above the cap', () => {
  for (let attempt = 0; attempt < 8; attempt++) {
    for (let i = 0; i < 50; i++) {
      const wait = backoffMs(attempt, undefined, 100, 2_000);
      assert.ok(wait >= 0 && wait < Math.min(2_000, 100 * 2 ** attempt), `${attempt}: ${wait}`);
    }
  }
  assert.equal(backoffMs(0, 1_500, 100, 2_000), 1_500);
  assert.equal(backoffMs(0, 9_000, 100, 2_000), 2_000);
});

test('redaction: the key itself, and anything shaped like a key or a bearer token', () => {
  const key = 'local-secret-value';
  assert.equal(redact(`bad key local-secret-value here`, [key]), 'bad key [redacted] here');
  assert.equal(redact('Incorrect API key provided: sk-abc*****wxyz.', []), 'Incorrect API key provided: [redacted]');
  assert.equal(redact('header was Bearer abc.def', []), 'header was Bearer [redacted]');
  assert.equal(redact('nothing to hide', [key, '']), 'nothing to hide');
});
