import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '@wap/errors';
import { z } from 'zod';
import { MAX_DEPTH, parsePart } from './input.js';

const anything = z.unknown();

/** A value `levels` arrays deep, built without recursion: `[[[...]]]`. */
function nested(levels: number, inner: unknown = 'x'): unknown {
  let value = inner;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

const refusedAt = (value: unknown, where = 'body') => {
  try {
    parsePart(anything, value, where);
  } catch (err) {
    assert.ok(err instanceof ApiError, `an ApiError, not ${String(err)}`);
    assert.equal(err.code, 'bad_request');
    return (err.details as { issues: { path: string; message: string }[] }).issues;
  }
  assert.fail('accepted');
};

test('nesting deeper than any route reads is bad_request, however deep: never a RangeError', () => {
  for (const levels of [MAX_DEPTH + 1, 200_000]) {
    const [issue, ...more] = refusedAt(nested(levels));
    assert.equal(more.length, 0);
    assert.equal(issue?.message, `nests deeper than ${MAX_DEPTH} levels`);
    assert.equal(issue?.path, ['body', ...Array(MAX_DEPTH).fill('0')].join('.'));
  }
  const objects = JSON.parse(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`);
  assert.match(refusedAt(objects)[0]?.path ?? '', /^body\.a\.a\.a/);
});

test('nesting up to the bound is read as it came', () => {
  const value = nested(MAX_DEPTH);
  assert.deepEqual(parsePart(anything, value, 'body'), value);
});

test('a NUL is found in a value or a key, at any depth, named by its path', () => {
  assert.equal(refusedAt({ a: [{ b: 'ok' }, { c: 'x\u0000' }] })[0]?.path, 'body.a.1.c');
  assert.equal(refusedAt({ a: { 'k\u0000': 1 } })[0]?.path, 'body.a');
  assert.equal(refusedAt('\u0000', 'query')[0]?.path, 'query');
  // The first in document order is the one named.
  assert.equal(refusedAt({ a: 'x\u0000', b: 'y\u0000' })[0]?.path, 'body.a');
});

test('a wide value is walked without trouble', () => {
  const wide = Array.from({ length: 300_000 }, (_, i) => (i === 299_999 ? 'end\u0000' : i));
  assert.equal(refusedAt(wide)[0]?.path, 'body.299999');
});
