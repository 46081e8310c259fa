// The address a sign-in is throttled by (docs/oauth.md, "Guessing passwords"),
// through a real gateway behind a real reverse proxy on loopback, as behind an
// ingress: each client connects to the proxy from a loopback address of its own
// (127.0.0.x), and the proxy forwards from 127.0.0.1, appending the address it
// saw to X-Forwarded-For (or Forwarded), as ingress-nginx does.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { NatsLink } from '@wap/events';
import { testNats } from '@wap/testkit';
import { SIGN_IN_POLICY } from '../oauth/sign-in-limits.js';
import { freshDatabase, startGateway, type TestDatabase } from '../test-support.js';
import { forwardedFor } from './client-address.js';

let database: TestDatabase;
let link: NatsLink;
const cleanups: Array<() => Promise<void>> = [];

before(async () => {
  database = await freshDatabase(4);
  link = await testNats('client-address-test');
});

after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await link?.drain();
  await database?.close();
});

/** A loopback address no other test of this file sends from: its throttle counts start at nothing. */
let lastClient = 10;
const newClient = () => `127.0.0.${++lastClient}`;

async function gateway(settings: Record<string, string> = {}): Promise<string> {
  const opened = await startGateway(database, link, settings, { registry: () => [] });
  cleanups.push(() => opened.stop());
  return opened.url;
}

/** A reverse proxy on 127.0.0.1 in front of `target`, adding the client's address to `header` as it forwards. */
async function reverseProxy(target: string, header: 'x-forwarded-for' | 'forwarded'): Promise<string> {
  const proxy = http.createServer((req, res) => {
    const client = req.socket.remoteAddress ?? '';
    const headers = { ...req.headers };
    if (header === 'x-forwarded-for') {
      headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${client}` : client;
    } else {
      const element = client.includes(':') ? `for="[${client}]"` : `for=${client}`;
      headers.forwarded = headers.forwarded ? `${headers.forwarded}, ${element}` : element;
    }
    const upstream = http.request(
      new URL(req.url ?? '/', target),
      { method: req.method, headers, localAddress: '127.0.0.1' },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

interface Answer {
  status: number;
  body: string;
}

/** A console sign-in with a wrong password, sent from the loopback address `from`. */
function guess(base: string, from: string, email: string, headers: Record<string, string> = {}): Promise<Answer> {
  const body = JSON.stringify({ email, password: 'not-the-password' });
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}/console/api/session`,
      {
        method: 'POST',
        localAddress: from,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Failures an address may have on one account before its next attempt waits. */
const FREE = SIGN_IN_POLICY.pair.free;

/**
 * Guesses from `from` until the failures its address may have on `email` are spent, each with
 * another made-up X-Forwarded-For and Forwarded (`spoof`); the next guess must be held.
 */
async function spendFreeFailures(base: string, from: string, email: string, spoof = false) {
  const spoofed = (i: number) =>
    spoof ? { 'x-forwarded-for': `203.0.113.${i}`, forwarded: `for=198.51.100.${i}` } : undefined;
  for (let i = 1; i <= FREE; i++) {
    const answer = await guess(base, from, email, spoofed(i));
    assert.equal(answer.status, 401, `guess ${i}: ${answer.body}`);
  }
  const held = await guess(base, from, email, spoofed(FREE + 1));
  assert.equal(held.status, 429, `held after ${FREE} failures: ${held.body}`);
  assert.equal((JSON.parse(held.body) as { code: string }).code, 'concurrency_limit');
}

const email = () => `someone-${randomUUID()}@example.com`;

describe('the address sign-ins are throttled by', () => {
  test('behind a trusted proxy: each client by its own address, whatever X-Forwarded-For it sends', async () => {
    const proxied = await reverseProxy(await gateway({ TRUSTED_PROXIES: '127.0.0.1/32' }), 'x-forwarded-for');
    const account = email();
    await spendFreeFailures(proxied, newClient(), account, true);
    const other = await guess(proxied, newClient(), account);
    assert.equal(other.status, 401, `another client behind the same proxy is not held: ${other.body}`);
  });

  test('behind a proxy that is not trusted: every client behind it by the proxy', async () => {
    const proxied = await reverseProxy(await gateway(), 'x-forwarded-for');
    const account = email();
    await spendFreeFailures(proxied, newClient(), account);
    const other = await guess(proxied, newClient(), account);
    assert.equal(other.status, 429, `held with the first: both are the proxy to the gateway: ${other.body}`);
  });

  test('a client reaching the gateway directly: by its own address, whatever X-Forwarded-For it sends', async () => {
    const direct = await gateway({ TRUSTED_PROXIES: '127.0.0.1/32' });
    const account = email();
    await spendFreeFailures(direct, newClient(), account, true);
    assert.equal((await guess(direct, newClient(), account)).status, 401, 'another client is not held');
  });

  test('behind a trusted proxy that writes Forwarded: by the address it wrote, never one the client sent', async () => {
    const proxied = await reverseProxy(
      await gateway({ TRUSTED_PROXIES: '127.0.0.1/32', TRUSTED_PROXY_HEADER: 'forwarded' }),
      'forwarded',
    );
    const account = email();
    await spendFreeFailures(proxied, newClient(), account, true);
    assert.equal((await guess(proxied, newClient(), account)).status, 401, 'another client is not held');
  });
});

test("a Forwarded header's addresses, as X-Forwarded-For lists them; what cannot be read is unknown", () => {
  assert.equal(
    forwardedFor('for=192.0.2.60;proto=http;by=203.0.113.43, For="[2001:db8:cafe::17]:4711", for="198.51.100.7:80"'),
    '192.0.2.60, 2001:db8:cafe::17, 198.51.100.7',
  );
  assert.equal(forwardedFor('for="unclosed, for=192.0.2.1'), 'unknown, 192.0.2.1', 'a bad element spoils only itself');
  assert.equal(forwardedFor('proto=https, for=_hidden'), 'unknown, _hidden');
  assert.equal(forwardedFor(undefined), '');
});
