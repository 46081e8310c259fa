import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goal, goalLines } from './goals.js';

test('a goal is met on the right side of its target, never when the figure was not measured', () => {
  assert.equal(goal('pairs/s', 1500, '>=', 1500, 'pairs/s').met, true);
  assert.equal(goal('pairs/s', 1499, '>=', 1500, 'pairs/s').met, false);
  assert.equal(goal('p99', 21, '<=', 20, 'ms').met, false);
  assert.equal(goal('ratio', Number.NaN, '<=', 1, '×').met, false);
});

test('a goal prints its figure, what was measured, the goal and the verdict', () => {
  assert.deepEqual(
    goalLines([goal('free read p99 ratio', 7.6153, '<=', 3, '×'), goal('idle RSS', 78.2, '<=', 80, 'MB')]),
    ['goal: free read p99 ratio: 7.615× (goal ≤ 3×): NOT met', 'goal: idle RSS: 78.2 MB (goal ≤ 80 MB): met'],
  );
  assert.match(goalLines([goal('x', Number.NaN, '>=', 1, 'rps')])[0] ?? '', /not measured/);
});
