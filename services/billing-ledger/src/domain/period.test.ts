import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allowancePeriod } from './period.js';

test('the allowance period is the calendar month in UTC', () => {
  const { start, end } = allowancePeriod(new Date('2026-11-20T12:34:56Z'));
  assert.equal(start.toISOString(), '2026-11-01T00:00:00.000Z');
  assert.equal(end.toISOString(), '2026-12-01T00:00:00.000Z');
});

test('the first instant of a month belongs to it; December rolls into the next year', () => {
  assert.equal(allowancePeriod(new Date('2026-12-01T00:00:00Z')).start.toISOString(), '2026-12-01T00:00:00.000Z');
  assert.equal(allowancePeriod(new Date('2026-11-30T23:59:59.999Z')).end.toISOString(), '2026-12-01T00:00:00.000Z');
  assert.equal(allowancePeriod(new Date('2026-12-31T23:00:00Z')).end.toISOString(), '2027-01-01T00:00:00.000Z');
});
