import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HostGates } from './host-gate.js';

test('at most max at once per key; the next waiter gets a freed place, in order', async () => {
  const gates = new HostGates();
  const a = (await gates.enter('h', 2)) as () => void;
  const b = (await gates.enter('h', 2)) as () => void;
  const order: string[] = [];
  const entered = (name: string) => (leave: (() => void) | undefined) => {
    order.push(name);
    assert.ok(leave, `${name} got a place`);
    return leave;
  };
  const c = gates.enter('h', 2).then(entered('c'));
  const d = gates.enter('h', 2).then(entered('d'));
  assert.equal(await gates.enter('h', 2), undefined, 'with max waiting already, the next is turned away at once');
  const other = (await gates.enter('other', 2)) as () => void;
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
