import assert from 'node:assert/strict';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { once } from 'node:events';
import { createServer, connect as netConnect } from 'node:net';
import { describe, it } from 'node:test';
import { AllowList, BlockedAddressError, guardedLookup, isBlockedAddressError, type Resolver } from './index.js';

function lookupOnce(resolve: Resolver, hostname: string, options: LookupOptions, allow?: AllowList) {
  return new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family: unknown }>((done) => {
    guardedLookup({ allow, resolve })(hostname, options, (err, address, family) => done({ err, address, family }));
  });
}

const answers =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('guardedLookup', () => {
  it('passes a public answer through in both callback shapes', async () => {
    const one = await lookupOnce(answers('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'), 'x.test', {});
    assert.deepEqual([one.err, one.address, one.family], [null, '93.184.215.14', 4]);
    const all = await lookupOnce(answers('93.184.215.14'), 'x.test', { all: true });
    assert.deepEqual(all.address, [{ address: '93.184.215.14', family: 4 }]);
    const v6 = await lookupOnce(answers('93.184.215.14', '2606:4700::1'), 'x.test', { family: 6 });
    assert.deepEqual([v6.address, v6.family], ['2606:4700::1', 6]);
  });

  for (const ip of ['127.0.0.1', '10.0.0.1', '169.254.169.254', '::1', 'fd00:ec2::254', '::ffff:192.168.0.1']) {
    it(`refuses a name answering ${ip}`, async () => {
      const { err } = await lookupOnce(answers(ip), 'evil.test', { all: true });
      assert.ok(err instanceof BlockedAddressError);
      assert.ok(isBlockedAddressError(err));
      assert.equal(err.address, ip);
      assert.equal(err.hostname, 'evil.test');
    });
  }

  it('refuses when any address of a mixed answer is blocked, whatever the family asked', async () => {
    const { err } = await lookupOnce(answers('93.184.215.14', '::1'), 'mixed.test', { family: 4 });
    assert.ok(err instanceof BlockedAddressError);
    assert.equal(err.address, '::1');
  });

  it('lets an allow-listed answer through', async () => {
    const { err, address } = await lookupOnce(answers('127.0.0.1'), 'site.test', {}, AllowList.parse('127.0.0.0/8'));
    assert.equal(err, null);
    assert.equal(address, '127.0.0.1');
  });

  it('passes resolver failures through and reports an empty family as ENOTFOUND', async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    assert.equal((await lookupOnce(failing, 'none.test', {})).err?.code, 'ENOTFOUND');
    assert.equal((await lookupOnce(answers('93.184.215.14'), 'v4only.test', { family: 6 })).err?.code, 'ENOTFOUND');
  });

  it('resolves localhost through the system resolver and refuses it', async () => {
    const { err } = await lookupOnce(undefined as never, 'localhost', { all: true });
    assert.ok(err instanceof BlockedAddressError);
  });

  it('is consulted by net.connect on every connection (DNS rebinding)', async () => {
    const server = createServer((s) => s.end());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const sequence: LookupAddress[][] = [[{ address: '127.0.0.1', family: 4 }], [{ address: '10.0.0.1', family: 4 }]];
    const rebinding: Resolver = async () => sequence.shift() ?? [];
    const lookup = guardedLookup({ allow: AllowList.parse('127.0.0.0/8'), resolve: rebinding });
    const attempt = () =>
      new Promise<unknown>((done) => {
        const socket = netConnect({ host: 'rebind.test', port, lookup });
        socket.on('connect', () => done(socket.destroy() && 'connected'));
        socket.on('error', done);
      });
    try {
      assert.equal(await attempt(), 'connected');
      const second = await attempt();
      assert.ok(second instanceof BlockedAddressError, String(second));
      assert.equal(second.address, '10.0.0.1');
    } finally {
      server.close();
    }
  });
});
