import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostAllowed, normaliseHost, reveals } from './secrets.js';

test('a domains entry is a bare host, kept in one form', () => {
  assert.equal(normaliseHost('Shop.Example.COM'), 'shop.example.com');
  assert.equal(normaliseHost('example.com.'), 'example.com');
  assert.equal(normaliseHost('bücher.example'), 'xn--bcher-kva.example');
  assert.equal(normaliseHost('127.0.0.1'), '127.0.0.1');
  assert.equal(normaliseHost('[::1]'), '[::1]');
  for (const bad of ['https://example.com', 'example.com:443', 'example.com/x', '*.example.com', 'a b', '', 'u@x.com'])
    assert.equal(normaliseHost(bad), undefined, bad);
});

test('a host is allowed by its own entry or a parent domain; an address only by itself', () => {
  const domains = ['example.com', '127.0.0.1'];
  assert.ok(hostAllowed('example.com', domains));
  assert.ok(hostAllowed('Pay.Shop.Example.com', domains));
  assert.ok(hostAllowed('127.0.0.1', domains));
  assert.equal(hostAllowed('evil-example.com', domains), false);
  assert.equal(hostAllowed('example.com.evil.net', domains), false);
  assert.equal(hostAllowed('1.127.0.0.1', domains), false);
});

test('an answer reveals a card number however grouped, a password or an env value; not a user name', () => {
  const card = { kind: 'card' as const, number: '4242424242424242', expMonth: 1, expYear: 2030, holder: 'Ada' };
  assert.ok(reveals(card, 'it is 4242 4242 4242 4242'));
  assert.ok(reveals(card, '4242-4242-4242-4242'));
  assert.equal(reveals(card, 'ends in 4242'), false);
  const login = { kind: 'login' as const, username: 'ada', password: 'lovelace-1815' };
  assert.ok(reveals(login, 'password lovelace-1815'));
  assert.equal(reveals(login, 'signed in as ada'), false);
  assert.ok(reveals({ kind: 'env', value: 'tok_123456' }, 'x tok_123456 y'));
});
