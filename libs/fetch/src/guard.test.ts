import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { isApiError } from '@wap/errors';
import { AllowList, BlockedAddressError, type Resolver } from '@wap/netguard';
import { startTestSite, type TestSite } from '@wap/testsite';
import { createFetchAgent, type FetchAgent, FetchFailure, fetchPage, fetchText } from './index.js';

const LOCAL = AllowList.parse('127.0.0.0/8, ::1/128');

/** The page_unreachable a call throws, with its FetchFailure cause. */
async function refused(call: Promise<unknown>): Promise<{ reason: unknown; failure: FetchFailure; url: unknown }> {
  const err = await call.then(
    () => assert.fail('the fetch was not refused'),
    (e: unknown) => e,
  );
  assert.ok(isApiError(err), String(err));
  assert.equal(err.code, 'page_unreachable');
  assert.ok(err.cause instanceof FetchFailure, String(err.cause));
  return { reason: err.details?.reason, failure: err.cause, url: err.details?.url };
}

describe('address guard in the fetch engine', () => {
  let site: TestSite;
  let local: FetchAgent;
  let guarded: FetchAgent;
  before(async () => {
    site = await startTestSite({ pages: 10 });
    local = createFetchAgent({ allow: LOCAL });
    guarded = createFetchAgent();
  });
  after(async () => {
    await Promise.all([local.close(), guarded.close()]);
    await site.close();
  });

  it('fetches a loopback page through the allow-list', async () => {
    const page = await fetchPage(`${site.url}/articles/1`, { agent: local });
    assert.equal(page.status, 200);
    assert.match(page.body ?? '', new RegExp(site.article(1).title.replace(/[()]/g, '\\$&')));
  });

  it('refuses the same page without it, before any request reaches the site', async () => {
    const before = site.stats.count('/articles/2');
    const r = await refused(fetchPage(`${site.url}/articles/2`, { agent: guarded }));
    assert.equal(r.reason, 'private_address');
    assert.equal(r.failure.kind, 'blocked_address');
    assert.equal(site.stats.count('/articles/2'), before);
  });

  it('refuses a host name that resolves to loopback (system DNS)', async () => {
    const r = await refused(fetchPage(`http://localhost:${site.port}/articles/1`, { agent: guarded }));
    assert.equal(r.failure.kind, 'blocked_address');
    assert.match(r.failure.address ?? '', /^(127\.|::1$)/);
  });

  it('refuses encoded literal forms of loopback', async () => {
    for (const host of ['2130706433', '0x7f.1', '0177.0.0.1', '[::ffff:127.0.0.1]']) {
      const r = await refused(fetchPage(`http://${host}:${site.port}/`, { agent: guarded }));
      assert.equal(r.reason, 'private_address', host);
    }
  });

  for (const [path, address] of [
    ['/redirect/private', '10.0.0.1'],
    ['/redirect/metadata', '169.254.169.254'],
    ['/redirect/loopback-ipv6', '::1'],
  ] as const) {
    it(`refuses the hop of ${path} into ${address}, even from an allowed site`, async () => {
      const agent = address === '::1' ? createFetchAgent({ allow: AllowList.parse('127.0.0.0/8') }) : local;
      const r = await refused(fetchPage(`${site.url}${path}`, { agent }));
      assert.equal(r.reason, 'private_address');
      assert.equal(r.failure.kind, 'blocked_address');
      assert.equal(r.failure.address, address);
      assert.equal(r.url, `${site.url}${path}`);
      if (agent !== local) await agent.close();
    });
  }

  it('refuses a redirect to a non-http scheme', async () => {
    const r = await refused(fetchPage(`${site.url}/redirect/ftp`, { agent: local }));
    assert.equal(r.failure.kind, 'bad_redirect');
  });

  it('refuses a redirect to a name resolving into a blocked range', async () => {
    const resolve: Resolver = async () => [{ address: '192.168.1.20', family: 4 }];
    const agent = createFetchAgent({ allow: AllowList.parse('127.0.0.0/8'), resolve });
    try {
      const target = encodeURIComponent(`http://intranet.example:${site.port}/articles/0`);
      const r = await refused(fetchPage(`${site.url}/redirect/to?url=${target}`, { agent }));
      assert.equal(r.failure.address, '192.168.1.20');
      assert.equal(r.failure.url, `http://intranet.example:${site.port}/articles/0`);
    } finally {
      await agent.close();
    }
  });

  it('checks every new connection: a name that answers public, then private (DNS rebinding)', async () => {
    // 127.0.0.1 stands in for a public address: it is the one the allow-list opens.
    const answers: LookupAddress[][] = [[{ address: '127.0.0.1', family: 4 }], [{ address: '10.1.2.3', family: 4 }]];
    let lookups = 0;
    const resolve: Resolver = async () => {
      lookups++;
      return answers.shift() ?? [];
    };
    const agent = createFetchAgent({ allow: LOCAL, resolve, keepAliveTimeoutMs: 1 });
    // A server of its own, to see when the agent has let its idle connection go.
    let open = 0;
    const server = createServer((_req, res) => res.end('<html><body><p>First answer</p></body></html>'));
    server.on('connection', (socket) => {
      open++;
      socket.on('close', () => open--);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const url = `http://rebind.example:${(server.address() as AddressInfo).port}/`;
      assert.equal((await fetchPage(url, { agent })).status, 200);
      // Once the idle connection is gone, the next fetch has to connect anew.
      const deadline = Date.now() + 30_000;
      while (open > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      assert.equal(open, 0, 'the agent let its idle connection go');
      const r = await refused(fetchPage(url, { agent }));
      assert.equal(r.failure.address, '10.1.2.3');
      assert.equal(lookups, 2);
    } finally {
      await agent.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('refuses a name when any of its answers is blocked', async () => {
    const resolve: Resolver = async () => [
      { address: '127.0.0.1', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ];
    const agent = createFetchAgent({ allow: AllowList.parse('127.0.0.0/8, 169.254.0.0/16'), resolve });
    try {
      const r = await refused(fetchPage(`http://mixed.example:${site.port}/`, { agent }));
      assert.equal(r.failure.address, '169.254.169.254');
    } finally {
      await agent.close();
    }
  });

  it('guards robots.txt and sitemap fetches the same way', async () => {
    assert.equal((await refused(fetchText(`${site.url}/robots.txt`, { agent: guarded }))).reason, 'private_address');
    assert.match((await fetchText(`${site.url}/robots.txt`, { agent: local })).text, /Disallow: \/private\//);
  });

  it('guards the connector itself, for callers that bypass fetchPage', async () => {
    const err = await guarded.dispatcher.request({ origin: site.url, path: '/', method: 'GET' }).then(
      () => assert.fail('connected'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof BlockedAddressError, String(err));
    const ok = await local.dispatcher.request({ origin: site.url, path: '/', method: 'GET' });
    assert.equal(ok.statusCode, 200);
    await ok.body.dump();
  });

  it('answers bad_request, not a fetch, for URLs that may never be fetched', async () => {
    for (const url of ['ftp://example.com/', 'http://user:pw@example.com/', 'nonsense']) {
      const err = await fetchPage(url, { agent: guarded }).catch((e: unknown) => e);
      assert.ok(isApiError(err) && err.code === 'bad_request', url);
    }
  });
});
