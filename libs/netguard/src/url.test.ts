import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isApiError } from '@wap/errors';
import { AllowList, BlockedAddressError, checkUrl } from './index.js';

function refusal(input: string, allow?: AllowList): { code: string; details: unknown; cause: unknown } {
  try {
    checkUrl(input, { allow });
  } catch (err) {
    assert.ok(isApiError(err), String(err));
    return { code: err.code, details: err.details, cause: err.cause };
  }
  assert.fail(`${input} was accepted`);
}

describe('checkUrl', () => {
  it('accepts public http and https URLs and returns the parsed URL', () => {
    assert.equal(checkUrl('https://Example.COM/a?b#c').href, 'https://example.com/a?b#c');
    assert.equal(checkUrl('http://93.184.215.14:8080/').port, '8080');
    assert.equal(checkUrl('http://[2606:4700::1]/').hostname, '[2606:4700::1]');
  });

  for (const input of [
    'not a url',
    '/relative',
    'http://',
    'ftp://example.com/',
    'file:///etc/passwd',
    'gopher://x/',
  ]) {
    it(`refuses ${input} as bad_request`, () => {
      const r = refusal(input);
      assert.equal(r.code, 'bad_request');
      assert.deepEqual((r.details as { issues: { path: string }[] }).issues[0]?.path, 'url');
    });
  }

  it('refuses credentials in the URL', () => {
    for (const input of ['http://user:pass@example.com/', 'https://user@example.com/']) {
      assert.equal(refusal(input).code, 'bad_request');
    }
  });

  it('refuses a host name DNS cannot carry as bad_request, before any lookup', () => {
    const label = (c: string, n = 63) => c.repeat(n);
    // 4 labels of 63 and "com": 259 characters, which getaddrinfo answers with EINVAL.
    for (const host of [`${label('a')}.${label('b')}.${label('c')}.${label('d')}.com`, `${label('a', 64)}.com`]) {
      const r = refusal(`https://${host}/`);
      assert.equal(r.code, 'bad_request');
      assert.match((r.details as { issues: { message: string }[] }).issues[0]?.message ?? '', /longer than DNS allows/);
    }
    // 253 characters, with or without the root's dot, and labels of 63: still a name.
    const longest = `${label('a')}.${label('b')}.${label('c')}.${label('d', 61)}`;
    assert.equal(longest.length, 253);
    for (const host of [longest, `${longest}.`]) assert.equal(checkUrl(`https://${host}/`).hostname, host);
  });

  // Encoded forms WHATWG URL turns into the addresses they stand for.
  const literals: readonly (readonly [string, string])[] = [
    ['http://127.0.0.1/', '127.0.0.1'],
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://%31%32%37.0.0.1/', '127.0.0.1'],
    ['http://0.0.0.0/', '0.0.0.0'],
    ['http://0/', '0.0.0.0'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['http://0xa9fea9fe/', '169.254.169.254'],
    ['http://10.0.0.1/', '10.0.0.1'],
    ['http://[::1]/', '::1'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', '::ffff:7f00:1'],
    ['http://[64:ff9b::a9fe:a9fe]/', '64:ff9b::a9fe:a9fe'],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254'],
    ['http://[fe80::1]/', 'fe80::1'],
  ];
  for (const [input, address] of literals) {
    it(`refuses ${input} as page_unreachable (blocked ${address})`, () => {
      const r = refusal(input);
      assert.equal(r.code, 'page_unreachable');
      assert.equal((r.details as { reason: string }).reason, 'private_address');
      assert.ok(r.cause instanceof BlockedAddressError);
      assert.equal(r.cause.address, address);
    });
  }

  it('lets allow-listed literals through and leaves host names to connect time', () => {
    assert.equal(checkUrl('http://2130706433:8080/', { allow: AllowList.parse('127.0.0.0/8') }).host, '127.0.0.1:8080');
    assert.equal(checkUrl('http://localhost/').hostname, 'localhost');
  });

  it('names the request field in the issue', () => {
    try {
      checkUrl('ftp://x/', { field: 'startUrl' });
      assert.fail('accepted');
    } catch (err) {
      assert.ok(isApiError(err));
      assert.deepEqual(err.details, {
        issues: [{ path: 'startUrl', message: 'only http and https URLs can be fetched' }],
      });
    }
  });
});
