import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoDate } from './dates.js';

test('a date a person writes is read as YYYY-MM-DD when it names one day', () => {
  assert.equal(isoDate('December 1, 2026'), '2026-12-01');
  assert.equal(isoDate('1 December 2026'), '2026-12-01');
  assert.equal(isoDate('Tuesday, 8 Nov 2028'), '2028-11-08');
  assert.equal(isoDate('March 8th, 2027'), '2027-03-08');
  assert.equal(isoDate('14 of March 1990'), '1990-03-14');
  assert.equal(isoDate('Sept. 3 2025'), '2025-09-03');
  assert.equal(isoDate('2026-12-01'), '2026-12-01');
  assert.equal(isoDate('2026-2-3'), '2026-02-03');
});

test('a date that is not one day, or not surely which, is left as written', () => {
  assert.equal(isoDate('01/12/2026'), undefined, 'day or month first');
  assert.equal(isoDate('February 30, 2026'), undefined);
  assert.equal(isoDate('Maybe 3, 2026'), undefined);
  assert.equal(isoDate('pebble'), undefined);
  assert.equal(isoDate(''), undefined);
});
