import assert from 'node:assert/strict';
import { lookup as dnsLookup } from 'node:dns/promises';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { ERRORS, isApiError } from '@wap/errors';
import { AllowList, BlockedAddressError, type Resolver } from '@wap/netguard';
import { startTestSite } from '@wap/testsite';
import { classify, type FailureKind, FetchFailure, unreachable } from './failure.js';
import { createFetchAgent, fetchPage } from './index.js';

const coded = (code: string, cause?: unknown) => Object.assign(new Error(code, { cause }), { code });

describe('classify', () => {
  const table: [string, unknown, FailureKind | undefined][] = [
    ['DNS miss', coded('ENOTFOUND'), 'dns'],
    ['DNS retry later', coded('EAI_AGAIN'), 'dns'],
    ['name too long for getaddrinfo', Object.assign(coded('EINVAL'), { syscall: 'getaddrinfo' }), 'dns'],
    ['EINVAL of anything else', coded('EINVAL'), undefined],
    ['refused', coded('ECONNREFUSED'), 'refused'],
    ['reset', coded('ECONNRESET'), 'reset'],
    ['socket closed by peer', coded('UND_ERR_SOCKET'), 'reset'],
    ['no route', coded('EHOSTUNREACH'), 'connect'],
    ['connect timeout', coded('UND_ERR_CONNECT_TIMEOUT'), 'timeout'],
    ['headers timeout', coded('UND_ERR_HEADERS_TIMEOUT'), 'timeout'],
    ['expired certificate', coded('CERT_HAS_EXPIRED'), 'tls'],
    ['self-signed', coded('DEPTH_ZERO_SELF_SIGNED_CERT'), 'tls'],
    ['wrong host', coded('ERR_TLS_CERT_ALTNAME_INVALID'), 'tls'],
    ['bad HTTP', coded('HPE_INVALID_CONSTANT'), 'protocol'],
    ['happy eyeballs', new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')]), 'refused'],
    ['wrapped', new Error('fetch failed', { cause: coded('ENOTFOUND') }), 'dns'],
    ['guard deep inside', coded('UND_ERR_SOCKET', new BlockedAddressError('10.0.0.1', 'private')), 'blocked_address'],
    ['our own bug', new TypeError('x is undefined'), undefined],
    ['not an error', 'oops', undefined],
  ];
  for (const [name, err, kind] of table) {
    it(`${name} -> ${kind ?? 'not a network error'}`, () => {
      assert.equal(classify(err)?.kind, kind);
    });
  }
});

describe('unreachable', () => {
  const kinds: FailureKind[] = [
    'dns',
    'refused',
    'reset',
    'connect',
    'timeout',
    'tls',
    'blocked_address',
    'bad_redirect',
    'too_many_redirects',
    'too_large',
    'protocol',
    'decode',
  ];
  for (const kind of kinds) {
    it(`${kind} fits the catalogue's closed details`, () => {
      const err = unreachable('http://example.com/', new FetchFailure(kind, 'x'), 302);
      assert.equal(err.code, 'page_unreachable');
      const details = err.details as Record<string, unknown>;
      const checked = ERRORS.page_unreachable.details.safeParse(details);
      assert.ok(checked.success, checked.error?.message);
      assert.equal('status' in details, details.reason === 'http_status');
    });
  }
});

describe('network failures over real sockets', () => {
  const allow = AllowList.parse('127.0.0.0/8, ::1/128');

  it('maps a DNS miss to dns', async () => {
    const resolve: Resolver = async () => {
      throw coded('ENOTFOUND');
    };
    const agent = createFetchAgent({ allow, resolve });
    const err = await fetchPage('http://no-such-host.example/', { agent }).catch((e: unknown) => e);
    assert.ok(isApiError(err));
    assert.deepEqual(err.details, { url: 'http://no-such-host.example/', reason: 'dns' });
    await agent.close();
  });

  it('refuses a host name DNS cannot carry: bad_request when asked, dns when redirected to, never a raw EINVAL', async () => {
    const long = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.example`;
    // What getaddrinfo itself answers such a name.
    const lookup = await dnsLookup(long).catch((e: unknown) => e);
    assert.equal((lookup as { code?: string }).code, 'EINVAL');
    assert.equal(classify(lookup)?.kind, 'dns');
    const site = await startTestSite();
    const agent = createFetchAgent({ allow });
    try {
      const asked = await fetchPage(`http://${long}/`, { agent }).catch((e: unknown) => e);
      assert.ok(isApiError(asked));
      assert.equal(asked.code, 'bad_request');
      const target = `http://${long}/page`;
      const hop = await fetchPage(`${site.url}/redirect/to?url=${encodeURIComponent(target)}`, { agent }).catch(
        (e: unknown) => e,
      );
      assert.ok(isApiError(hop) && hop.cause instanceof FetchFailure);
      assert.equal(hop.details?.reason, 'dns');
      assert.equal(hop.cause.url, target);
    } finally {
      await agent.close();
      await site.close();
    }
  });

  it('maps a closed port to connect', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    server.close();
    await once(server, 'close');
    const agent = createFetchAgent({ allow });
    const err = await fetchPage(`http://127.0.0.1:${port}/`, { agent }).catch((e: unknown) => e);
    assert.ok(isApiError(err) && err.cause instanceof FetchFailure);
    assert.equal(err.details?.reason, 'connect');
    assert.equal(err.cause.kind, 'refused');
    await agent.close();
  });

  it('maps a failed TLS handshake to tls, after the guard let the name through', async () => {
    const site = await startTestSite();
    const agent = createFetchAgent({ allow });
    try {
      // The test site speaks plain HTTP, so the handshake fails.
      const err = await fetchPage(`https://localhost:${site.port}/`, { agent }).catch((e: unknown) => e);
      assert.ok(isApiError(err));
      assert.equal(err.details?.reason, 'tls');
    } finally {
      await agent.close();
      await site.close();
    }
  });
});
