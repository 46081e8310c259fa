import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bearerFrom, cookieFrom, hashSecret, mintApiKey, parseCredential, secretMatches } from './credentials.js';

test('a minted key parses back to its id and secret, and only its secret matches', () => {
  const key = mintApiKey();
  assert.match(key.credential, /^ock_[a-z0-9]{16}\.[A-Za-z0-9_-]{43}$/);
  const parsed = parseCredential(key.credential);
  assert.deepEqual(parsed, { kind: 'api_key', keyId: key.keyId, secret: key.secret });
  assert.ok(secretMatches(key.secret, key.secretHash));
  assert.ok(!secretMatches(mintApiKey().secret, key.secretHash));
  assert.ok(!secretMatches(key.secret, hashSecret(key.secret).subarray(0, 16)));
});

test('keys are distinct and their ids use the whole alphabet', () => {
  const ids = new Set(Array.from({ length: 2000 }, () => mintApiKey().keyId));
  assert.equal(ids.size, 2000);
  const chars = new Set([...ids].join(''));
  assert.equal(chars.size, 36);
});

test('anything else is not a credential', () => {
  for (const raw of [
    '',
    'ock_',
    'ock_short.secret',
    `ock_${'a'.repeat(16)}`,
    `ock_${'a'.repeat(16)}.x.y`,
    'oat_',
    'sk_live_123',
    'oat_with space',
  ]) {
    assert.equal(parseCredential(raw), undefined, raw);
  }
  assert.deepEqual(parseCredential('oat_abc.def'), { kind: 'oauth_token', token: 'oat_abc.def' });
});

test('exactly one Bearer header is a credential', () => {
  assert.deepEqual(bearerFrom(['Authorization', 'Bearer ock_x']), { credential: 'ock_x' });
  assert.deepEqual(bearerFrom(['authorization', 'bearer  ock_x ']), { problem: 'malformed' });
  assert.deepEqual(bearerFrom(['Host', 'x']), { problem: 'missing' });
  assert.deepEqual(bearerFrom(['Authorization', 'Bearer a', 'authorization', 'Bearer b']), { problem: 'multiple' });
  assert.deepEqual(bearerFrom(['Authorization', 'Bearer a, Bearer b']), { problem: 'malformed' });
  assert.deepEqual(bearerFrom(['Authorization', 'Token abc']), { problem: 'malformed' });
});

test("a cookie is read by its exact name, the first when sent twice, and not from another's value", () => {
  const header = 'theme=dark; wap_session=abc_-123; wap_session_old=zzz; x=wap_session=evil; wap_session=second';
  assert.equal(cookieFrom(header, 'wap_session'), 'abc_-123');
  assert.equal(cookieFrom(header, 'wap_session_old'), 'zzz');
  assert.equal(cookieFrom(header, 'session'), undefined);
  assert.equal(cookieFrom(undefined, 'wap_session'), undefined);
  assert.equal(cookieFrom('=abc; wap_session', 'wap_session'), undefined);
});
