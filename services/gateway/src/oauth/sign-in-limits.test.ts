import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clientAddress, signInKeys } from './sign-in-limits.js';

describe('sign-in keys', () => {
  test('one machine is one guesser: an IPv6 /64 is one address, an IPv4-mapped address is its IPv4', () => {
    assert.equal(clientAddress('2001:db8:1:2:aaaa::1'), clientAddress('2001:0db8:0001:0002:ffff:1:2:3'));
    assert.equal(clientAddress('2001:db8:1:2::1'), '2001:db8:1:2::/64');
    assert.notEqual(clientAddress('2001:db8:1:3::1'), clientAddress('2001:db8:1:2::1'));
    assert.equal(clientAddress('::1'), '0:0:0:0::/64');
    assert.equal(clientAddress('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(clientAddress('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(clientAddress('203.0.113.7'), '203.0.113.7');
    assert.equal(clientAddress(undefined), 'unknown');
  });

  test('an account is its email whatever the case or spaces, as sign-in finds it', () => {
    assert.deepEqual(signInKeys(' Ada@Example.TEST ', '::ffff:127.0.0.2'), [
      'pair:127.0.0.2 ada@example.test',
      'address:127.0.0.2',
      'account:ada@example.test',
    ]);
  });
});
