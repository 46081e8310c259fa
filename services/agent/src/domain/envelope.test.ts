import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { type Envelope, type KeyEncryptionKey, localKek, openEnvelope, sealEnvelope } from './envelope.js';

const KEY = 'k'.repeat(48);
const plain = Buffer.from('{"kind":"env","value":"ghp_a-very-secret-token"}');

const flip = (b: Buffer, at: number) => {
  const copy = Buffer.from(b);
  copy[at] = (copy[at] as number) ^ 0x01;
  return copy;
};

test('a value sealed under a data key of its own opens with the KEK that wrapped that key', async () => {
  const kek = localKek(KEY);
  const envelope = await sealEnvelope(kek, 'ws/1', plain);
  assert.equal(envelope.kekId, kek.id);
  assert.ok(!envelope.sealed.includes(Buffer.from('ghp_a-very-secret-token')), 'the ciphertext hides the value');
  assert.deepEqual(await openEnvelope(kek, 'ws/1', envelope), plain);
  // Another process with the same fleet secret opens it too.
  assert.deepEqual(await openEnvelope(localKek(KEY), 'ws/1', envelope), plain);
});

test('every secret gets its own data key, and the KEK sees only data keys', async () => {
  const seen: { dataKey: Buffer; context: string }[] = [];
  const local = localKek(KEY);
  // What a KMS would implement: it is handed 32 random bytes and a context, never a value.
  const kms: KeyEncryptionKey = {
    id: 'kms:test',
    wrap: async (dataKey, context) => {
      seen.push({ dataKey: Buffer.from(dataKey), context });
      return local.wrap(dataKey, context);
    },
    unwrap: (wrapped, context) => local.unwrap(wrapped, context),
  };
  const a = await sealEnvelope(kms, 'ws/a', plain);
  const b = await sealEnvelope(kms, 'ws/b', plain);
  assert.equal(seen.length, 2);
  assert.ok(seen.every((s) => s.dataKey.length === 32));
  assert.notDeepEqual(seen[0]?.dataKey, seen[1]?.dataKey, 'one data key per secret');
  assert.ok(!seen.some((s) => s.dataKey.includes(plain)));
  assert.notDeepEqual(a.sealed, b.sealed, 'the same value seals differently');
  assert.equal(a.kekId, 'kms:test');
  assert.deepEqual(await openEnvelope(kms, 'ws/b', b), plain);
});

test('a changed byte, another row, another KEK or a data key from another secret opens nothing', async () => {
  const kek = localKek(KEY);
  const env = await sealEnvelope(kek, 'ws/1', plain);
  const other = await sealEnvelope(kek, 'ws/2', plain);
  const refused = async (e: Envelope, context = 'ws/1', k: KeyEncryptionKey = kek) =>
    assert.rejects(openEnvelope(k, context, e));
  for (const at of [0, 5, 20, env.sealed.length - 1]) await refused({ ...env, sealed: flip(env.sealed, at) });
  for (const at of [0, 5, 20, env.wrappedKey.length - 1])
    await refused({ ...env, wrappedKey: flip(env.wrappedKey, at) });
  await refused({ ...env, sealed: env.sealed.subarray(0, env.sealed.length - 1) });
  await refused(env, 'ws/2');
  await refused({ ...env, wrappedKey: other.wrappedKey });
  await refused({ ...env, sealed: other.sealed });
  await refused(env, 'ws/1', localKek(randomBytes(32).toString('base64')));
  // A KEK that claims the same id but is another key still fails: the wrap is authenticated.
  const impostor = localKek('x'.repeat(48));
  await refused(env, 'ws/1', { ...impostor, id: kek.id });
});
