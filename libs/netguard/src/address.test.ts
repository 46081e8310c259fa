import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AllowList, classifyAddress, isBlockedAddress } from './index.js';

// [address, class]; every class other than `public` must be blocked by default.
const TABLE: readonly (readonly [string, string])[] = [
  // IPv4
  ['8.8.8.8', 'public'],
  ['93.184.215.14', 'public'],
  ['1.1.1.1', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.0', 'public'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['198.17.255.255', 'public'],
  ['198.20.0.0', 'public'],
  ['223.255.255.255', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.1.1', 'linkLocal'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.254', 'cgnat'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['192.0.2.10', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.200', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  // cloud metadata
  ['169.254.169.254', 'metadata'],
  ['169.254.170.2', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['192.0.0.192', 'metadata'],
  ['fd00:ec2::254', 'metadata'],
  ['::ffff:169.254.169.254', 'metadata'],
  // IPv6
  ['2606:4700:4700::1111', 'public'],
  ['2001:4860:4860::8888', 'public'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'linkLocal'],
  ['fe80::1%eth0', 'linkLocal'],
  ['febf:ffff::1', 'linkLocal'],
  ['fc00::1', 'uniqueLocal'],
  ['fd12:3456:789a::1', 'uniqueLocal'],
  ['fec0::1', 'private'],
  ['ff02::1', 'multicast'],
  ['ff0e::1', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001:2::1', 'benchmarking'],
  ['2001:10::1', 'reserved'],
  ['100::1', 'reserved'],
  ['5f00::1', 'reserved'],
  ['4000::1', 'reserved'], // outside 2000::/3
  ['64:ff9b:1::a00:1', 'private'],
  // IPv4 embedded in IPv6
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:8.8.8.8', 'public'],
  ['::ffff:0:a00:1', 'private'], // SIIT-translated
  ['::127.0.0.1', 'reserved'], // IPv4-compatible
  ['::8.8.8.8', 'reserved'],
  ['64:ff9b::7f00:1', 'loopback'], // NAT64
  ['64:ff9b::a9fe:a9fe', 'metadata'],
  ['64:ff9b::808:808', 'public'],
  ['2002:7f00:1::1', 'loopback'], // 6to4
  ['2002:c0a8:101::1', 'private'],
  ['2002:808:808::1', 'public'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'], // Teredo, client 127.0.0.1 stored inverted
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'documentation'], // Teredo, RFC 4380's client 192.0.2.45
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'public'], // Teredo, client 8.8.8.8
  ['2001:0:a00:1::1', 'private'], // Teredo server 10.0.0.1
  // not addresses
  ['example.com', 'invalid'],
  ['', 'invalid'],
  ['2130706433', 'invalid'],
  ['0x7f.1', 'invalid'],
  ['127.1', 'invalid'],
];

describe('classifyAddress and isBlockedAddress', () => {
  for (const [ip, cls] of TABLE) {
    it(`${ip || '(empty)'} is ${cls}${cls === 'public' ? '' : ', blocked'}`, () => {
      assert.equal(classifyAddress(ip), cls);
      assert.equal(isBlockedAddress(ip), cls !== 'public');
    });
  }

  it('reads bracketed IPv6 as URL hosts carry it', () => {
    assert.equal(classifyAddress('[::1]'), 'loopback');
    assert.equal(isBlockedAddress('[2606:4700:4700::1111]'), false);
  });
});

describe('AllowList', () => {
  const local = AllowList.parse('127.0.0.0/8, ::1/128 10.9.0.0/16');

  it('lets its ranges through, including IPv4 embedded in IPv6', () => {
    assert.equal(isBlockedAddress('127.0.0.1', local), false);
    assert.equal(isBlockedAddress('::1', local), false);
    assert.equal(isBlockedAddress('::ffff:127.0.0.1', local), false);
    assert.equal(isBlockedAddress('10.9.3.4', local), false);
  });

  it('opens nothing else', () => {
    assert.equal(isBlockedAddress('10.10.0.1', local), true);
    assert.equal(isBlockedAddress('192.168.0.1', local), true);
    assert.equal(isBlockedAddress('0.0.0.0', local), true);
    assert.equal(isBlockedAddress('fe80::1', local), true);
  });

  it('never opens a cloud metadata address', () => {
    const wide = new AllowList(['169.254.0.0/16', '100.64.0.0/10', 'fc00::/7', '192.0.0.0/24']);
    assert.equal(isBlockedAddress('169.254.1.1', wide), false);
    for (const ip of ['169.254.169.254', '100.100.100.200', 'fd00:ec2::254', '192.0.0.192']) {
      assert.equal(isBlockedAddress(ip, wide), true, ip);
    }
  });

  it('accepts single addresses and is empty by default', () => {
    const one = new AllowList(['127.0.0.1']);
    assert.equal(isBlockedAddress('127.0.0.1', one), false);
    assert.equal(isBlockedAddress('127.0.0.2', one), true);
    assert.equal(AllowList.parse(undefined).empty, true);
    assert.equal(AllowList.parse(' , ').empty, true);
  });

  it('refuses a malformed setting instead of guessing', () => {
    assert.throws(() => AllowList.parse('127.0.0.0/33'), TypeError);
    assert.throws(() => AllowList.parse('localhost'), TypeError);
    assert.throws(() => AllowList.parse('127.1/8'), TypeError);
  });
});
