// Sealed bytes open only with the same secret, purpose and owner, and not once changed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seal, sealText, unseal, unsealText } from './index.js';

const SECRET = 'a-fleet-secret-of-at-least-32-characters';

test('sealed bytes open with the same secret, purpose and owner only', () => {
  const plain = Buffer.from('a state');
  const blob = seal(SECRET, 'p v1', 'owner-1', plain);
  assert.deepEqual(unseal(SECRET, 'p v1', 'owner-1', blob), plain);
  assert.notDeepEqual(seal(SECRET, 'p v1', 'owner-1', plain), blob, 'a fresh nonce each time');
  const changed = Buffer.from(blob);
  changed[changed.length - 1] = (changed.at(-1) as number) ^ 1;
  assert.throws(() => unseal(SECRET, 'p v1', 'owner-1', changed), 'a changed byte');
  assert.throws(() => unseal(SECRET, 'p v1', 'owner-2', blob), 'another owner');
  assert.throws(() => unseal(SECRET, 'q v1', 'owner-1', blob), 'another purpose');
  assert.throws(() => unseal(`${SECRET}-x`, 'p v1', 'owner-1', blob), 'another secret');
  assert.throws(() => unseal(SECRET, 'p v1', 'owner-1', Buffer.from('short')), /not a sealed blob/);
  const text = sealText(SECRET, 'p v1', 'owner-1', 'https://hooks.example/secret');
  assert.ok(!text.includes('secret'));
  assert.equal(unsealText(SECRET, 'p v1', 'owner-1', text), 'https://hooks.example/secret');
});
