// The answer check's guard: an answer is taken from the text it was read from only when that
// text (or the task) writes every number it gives.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groundedIn } from './step-questions.js';

const RESULTS = 'Lemon ricotta pancakes\nFluffy pancakes with lemon zest.\nRicotta pancakes with summer berries';
const RECIPE = 'Ingredients\n3 eggs\n250 g ricotta\n1 lemon\nBalance: 1,284.50 EUR';

test('a number the text does not write is not read from it', () => {
  assert.equal(groundedIn({ eggs: 4 }, RESULTS, 'how many eggs does it need?'), false);
  assert.equal(groundedIn({ eggs: 3 }, RECIPE, 'how many eggs does it need?'), true);
  assert.equal(groundedIn('It needs 4 eggs', RESULTS, 'how many eggs?'), false);
  assert.equal(groundedIn('It needs 3 eggs', RECIPE, 'how many eggs?'), true);
});

test('numbers are matched by value, in digits with separators or as words, and in nested answers', () => {
  assert.equal(groundedIn({ balance: 1284.5 }, RECIPE, 'my balance'), true);
  assert.equal(groundedIn({ people: 3 }, 'Serves three people', 'for how many?'), true);
  assert.equal(groundedIn({ items: [{ ricotta: 250 }, { lemon: 1 }] }, RECIPE, 'list them'), true);
  assert.equal(groundedIn({ items: [{ ricotta: 250 }, { lemon: 7 }] }, RECIPE, 'list them'), false);
  // A number the task writes (a model number, an order) may be said back.
  assert.equal(groundedIn('HX-200 resets after 10 seconds', 'Hold it for 10 seconds.', 'the HX-200 router'), true);
  // An answer of words alone, or a yes, holds no number to check.
  assert.equal(groundedIn({ inStock: true, colour: 'blue' }, RESULTS, 'is it in stock?'), true);
});

test('a number given as a named field must be on a line that says the field’s name', () => {
  const results = 'Lemon ricotta pancakes · 4 ingredients\nButtermilk pancakes · 3 ingredients';
  assert.equal(groundedIn({ eggs: 4 }, results, 'how many eggs?'), false, 'the 4 of "4 ingredients"');
  assert.equal(groundedIn({ ingredients: 4 }, results, 'how many ingredients?'), true);
  assert.equal(groundedIn({ startYear: 2019 }, 'Started in 2019', 'when did she start?'), true);
  // A label above its value is beside it; two lines away is not.
  assert.equal(groundedIn({ balance: 1284.5 }, 'Overview\nBalance\n€1,284.50', 'the balance'), true);
  assert.equal(groundedIn({ balance: 1284.5 }, 'Balance\nDue soon\nTotal paid\n€1,284.50', 'the balance'), false);
});

test('a number in a table is read by its column and its row', () => {
  const table = 'Invoice | Due | Amount\nINV-4103 | 2026-04-30 | €198.38\nINV-4104 | 2026-05-31 | €12.00';
  assert.equal(groundedIn({ amount: 198.38 }, table, 'the amount of INV-4103'), true);
  // Rows further down than the line after the header count too; a row with no header over it does not.
  const longer = `${table}\nINV-4105 | 2026-06-30 | €77.10`;
  assert.equal(groundedIn({ amount: 77.1 }, longer, 'the amount of INV-4105'), true);
  assert.equal(groundedIn({ amount: 77.1 }, 'INV-4105 | 2026-06-30 | €77.10', 'the amount'), false);
  // The row the task names, under the column that says most of the name.
  const plans = 'Plan | Requests per minute | Concurrent requests\nFree | 20 | 2\nStarter | 60 | 5\nTeam | 300 | 20';
  const task = 'How many requests per minute does the Team plan allow?';
  assert.equal(groundedIn({ requestsPerMinute: 300 }, plans, task), true);
  assert.equal(groundedIn({ requestsPerMinute: 20 }, plans, task), false, "Free's row, or Team's other column");
  assert.equal(groundedIn({ requestsPerMinute: 60 }, plans, task), false, 'a row the task does not name');
});
