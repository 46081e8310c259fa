import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dateAsAsked, dateFormat, datesIn, isoDate } from './dates.js';

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

test('a field that asks for a date in its form gets the task’s date in that form, even from a piece of it', () => {
  const task = 'Create an account for Marta: born on 14 March 1990. Accept the terms.';
  assert.deepEqual(datesIn(task), [{ written: '14 March 1990', iso: '1990-03-14' }]);
  assert.equal(dateFormat('YYYY-MM-DD'), 'YYYY-MM-DD');
  assert.equal(dateFormat('dd/mm/yyyy'), 'DD/MM/YYYY');
  assert.equal(dateFormat('MM.DD.YYYY'), 'MM.DD.YYYY');
  assert.equal(dateFormat('Your name'), undefined);
  assert.equal(dateFormat('YYYY-YYYY-DD'), undefined);
  assert.equal(dateAsAsked('1990', task, 'YYYY-MM-DD'), '1990-03-14');
  assert.equal(dateAsAsked('14 March 1990', task, 'DD/MM/YYYY'), '14/03/1990');
  assert.equal(dateAsAsked('March 14, 1990', task, 'MM/DD/YYYY'), '03/14/1990');
  // A date the task does not hold is still put in the form when it names one day; other text is left.
  assert.equal(dateAsAsked('June 2, 1987', 'Sign up', 'YYYY-MM-DD'), '1987-06-02');
  assert.equal(dateAsAsked('soon', task, 'YYYY-MM-DD'), 'soon');
  assert.equal(dateAsAsked('1987', task, 'YYYY-MM-DD'), '1987', 'a year the task does not write');
});
