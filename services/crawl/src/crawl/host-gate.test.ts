import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HostGates } from './host-gate.js';

test('at most max at once per key; the next waiter gets a freed place, in order', async () => {
  const gates = new HostGates();
  const a = await gates.enter('h', 2);
  const b = await gates.enter('h', 2);
  const order: string[] = [];
  const entered = (name: string) => (leave: () => void) => {
    order.push(name);
    return leave;
  };
  const c = gates.enter('h', 2).then(entered('c'));
  const d = gates.enter('h', 2).then(entered('d'));
  const other = await gates.enter('other', 2);
  assert.deepEqual(gates.size('h'), { active: 2, waiting: 2 });
  a();
  a(); // leaving twice frees one place only
  const leaveC = await c;
  assert.deepEqual(order, ['c']);
  assert.deepEqual(gates.size('h'), { active: 2, waiting: 1 });
  b();
  const leaveD = await d;
  assert.deepEqual(order, ['c', 'd']);
  leaveC();
  leaveD();
  other();
  assert.deepEqual(gates.size('h'), { active: 0, waiting: 0 }, 'an idle key is forgotten');
});
