import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { availableCredits, call } from './api.js';
import { fleet, sharedFleet } from './shared-fleet.js';

let site: TestSite;
let key: string;

type ScrapeReply = {
  success: boolean;
  data: {
    markdown?: string;
    text?: string;
    html?: string;
    rawHtml?: string;
    links?: string[];
    screenshot?: string;
    metadata: Record<string, unknown>;
  };
  usage: { credits: number; meters: Record<string, number> };
};

const scrape = (body: Record<string, unknown>, apiKey = key, headers: Record<string, string> = {}) =>
  call<ScrapeReply>(fleet.gatewayUrl, 'POST', '/v1/scrape', { key: apiKey, body, headers });
const credits = (apiKey = key) => availableCredits(fleet.gatewayUrl, apiKey);

describe('scrape, and one credit balance', () => {
  before(async () => {
    // The test site listens on 127.0.0.2, the one loopback address the fleet's egress lets through
    // (production never sets it); credit views are kept ten minutes there.
    site = await startTestSite({ pages: 20, host: '127.0.0.2' });
    await sharedFleet('site');
    ({ apiKey: key } = await fleet.workspace('pro'));
  });

  after(async () => {
    await site?.close();
  });

  describe('scrape', () => {
    test('an article comes back as clean markdown, billed one page', async () => {
      const article = site.article(3);
      const r = await scrape({ url: `${site.url}/articles/3`, formats: ['markdown', 'links', 'metadata'] });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.success, true);
      assert.ok(r.body.data.markdown?.includes(article.title), 'the title is in the markdown');
      assert.ok(!r.body.data.markdown?.includes('cookie'), 'the cookie banner is not main content');
      assert.ok(
        r.body.data.links?.every((l) => l.startsWith('http')),
        'links are absolute',
      );
      assert.equal(r.body.data.metadata.statusCode, 200);
      assert.deepEqual(r.body.usage, { credits: 1, meters: { page_load: 1 } });
    });

    test('the site sees no trace headers: trace context never leaves for the web', async () => {
      const r = await scrape({ url: `${site.url}/headers`, formats: ['rawHtml'], engine: 'fetch' });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const seen = Object.keys(JSON.parse(/\{.*\}/s.exec(r.body.data.rawHtml ?? '')?.[0] ?? '{}') as object);
      assert.ok(seen.includes('user-agent'), `the echo shows the request's headers: ${seen.join(', ')}`);
      for (const header of ['traceparent', 'tracestate', 'baggage']) assert.ok(!seen.includes(header), header);
    });

    test('a page that needs scripts is rendered in a browser', async () => {
      const r = await scrape({ url: `${site.url}/rendered/1`, formats: ['text'] });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.data.metadata.engine, 'browser');
      assert.ok(r.body.data.text?.includes(site.renderedArticle(1).title), r.body.data.text);
    });

    test('a screenshot is a PNG data URL', async () => {
      const r = await scrape({ url: `${site.url}/articles/1`, formats: ['screenshot'] });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.match(r.body.data.screenshot ?? '', /^data:image\/png;base64,iVBOR/);
    });

    for (const [name, path, reason] of [
      ['an error status', '/does-not-exist', 'http_status'],
      ['a redirect into a private range', '/redirect/private', 'private_address'],
    ] as const) {
      test(`${name} is page_unreachable and not billed`, async () => {
        const before = await credits();
        const r = await scrape({ url: `${site.url}${path}` });
        assert.equal(r.status, 422, JSON.stringify(r.body));
        assert.equal((r.body as unknown as { code: string }).code, 'page_unreachable');
        assert.equal((r.body as unknown as { details: { reason: string } }).details.reason, reason);
        assert.equal(await credits(), before);
      });
    }

    test('every private, loopback, link-local, CGNAT, multicast and metadata address is refused and not billed', async () => {
      const before = await credits();
      const port = site.port;
      for (const url of [
        'http://169.254.169.254/latest/meta-data/', // cloud metadata
        'http://[fd00:ec2::254]/', // AWS metadata over IPv6
        'http://10.0.0.1/',
        'http://172.16.0.1/',
        'http://192.168.1.1/',
        `http://127.0.0.1:${port}/articles/1`, // loopback outside the allow-list
        'http://100.64.0.1/', // CGNAT
        'http://224.0.0.1/', // multicast
        'http://0.0.0.0/',
        'http://[::1]/',
        'http://[fe80::1]/',
        'http://[fc00::1]/',
        `http://[::ffff:127.0.0.1]:${port}/`, // IPv4-mapped loopback
        `http://2130706433:${port}/`, // 127.0.0.1 written as a number
        `http://localhost:${port}/articles/1`, // a name that resolves to loopback
      ]) {
        for (const engine of ['fetch', 'browser']) {
          const r = await scrape({ url, engine });
          assert.equal(r.status, 422, `${engine} ${url}: ${JSON.stringify(r.body)}`);
          const body = r.body as unknown as { code: string; details: { reason: string } };
          assert.equal(body.code, 'page_unreachable', `${engine} ${url}`);
          assert.equal(body.details.reason, 'private_address', `${engine} ${url}: ${JSON.stringify(body)}`);
        }
      }
      for (const path of [
        '/redirect/metadata',
        '/redirect/localhost',
        '/redirect/loopback-ipv6',
        '/redirect/encoded-ip',
      ]) {
        const r = await scrape({ url: `${site.url}${path}` });
        assert.equal(r.status, 422, `${path}: ${JSON.stringify(r.body)}`);
      }
      assert.equal(await credits(), before, 'nothing refused was billed');
    });

    test("a page's own requests to metadata and private addresses are refused in the browser, and said", async () => {
      const r = await scrape({ url: `${site.url}/probe/private-fetch`, engine: 'browser' });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const warnings = (r.body.data as { warnings?: string[] }).warnings ?? [];
      for (const address of ['169.254.169.254', '10.0.0.1', '10.0.0.2'])
        assert.ok(
          warnings.some((w) => w.includes(address)),
          `${address} refused: ${JSON.stringify(warnings)}`,
        );
      assert.deepEqual(r.body.usage, { credits: 1, meters: { page_load: 1 } }, 'the page itself was delivered');
    });

    test('a bad body is 400 with the field', async () => {
      const r = await scrape({ url: 'ftp://example.com/', formats: ['pdf'] });
      assert.equal(r.status, 400);
      const paths = (r.body as unknown as { details: { issues: { path: string }[] } }).details.issues.map(
        (i) => i.path,
      );
      assert.ok(paths.includes('body.url') && paths.some((p) => p.startsWith('body.formats')), paths.join());
    });

    test('a crawl of a name that resolves to a private address says so in its failures, and bills nothing', async () => {
      const before = await credits();
      const started = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/crawl', {
        key,
        body: { url: `http://localhost:${site.port}/`, limit: 5 },
      });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      type Crawl = {
        status: string;
        completed: number;
        failures: { url: string; code: string; details?: { reason?: string } }[];
      };
      let crawl: Crawl | undefined;
      await until('the crawl settled', async () => {
        crawl = (await call<{ crawl: Crawl }>(fleet.gatewayUrl, 'GET', `/v1/crawl/${started.body.id}`, { key })).body
          .crawl;
        return crawl.status === 'settled';
      });
      assert.equal(crawl?.completed, 0);
      assert.deepEqual(
        crawl?.failures.map((f) => [f.code, f.details?.reason]),
        [['page_unreachable', 'private_address']],
      );
      assert.equal(await credits(), before, 'nothing billed, nothing left held');
    });

    test('browser renders hold the plan’s browser slots: over the free plan’s 2, a scrape is 429 and not billed', async () => {
      const ws = `slots-${Date.now()}`;
      await fleet.admin('workspace', 'create', ws, '--plan', 'free');
      const { apiKey } = await fleet.admin<{ apiKey: string }>('key', 'create', ws);
      const before = await credits(apiKey);
      // A page that answers only when the test says: two renders waiting for it hold both slots.
      const waiting: (() => void)[] = [];
      const held = createServer((req, res) => {
        if (!req.url?.startsWith('/held')) return void res.writeHead(404).end();
        waiting.push(() => res.end('<html><body><p>Held until the test let it go.</p></body></html>'));
      });
      held.listen(0, '127.0.0.2');
      await once(held, 'listening');
      const page = (n: number) => ({ url: `http://127.0.0.2:${(held.address() as AddressInfo).port}/held?n=${n}` });
      try {
        const rendering = [0, 1].map((n) => scrape({ ...page(n), engine: 'browser' }, apiKey));
        await until('both renders wait for their page', async () => waiting.length === 2);
        const refused = await Promise.all([2, 3, 4].map((n) => scrape({ ...page(n), engine: 'browser' }, apiKey)));
        for (const r of refused) {
          assert.equal(r.status, 429, JSON.stringify(r.body));
          const body = r.body as unknown as { code: string; details: { kind: string; limit: number } };
          assert.equal(body.code, 'concurrency_limit');
          assert.equal(body.details.kind, 'browsers');
          assert.equal(body.details.limit, 2);
          assert.ok(Number(r.headers.get('retry-after')) >= 1, 'says when to try again');
        }
        for (const answer of waiting.splice(0)) answer();
        for (const r of await Promise.all(rendering)) assert.equal(r.status, 200, JSON.stringify(r.body));
      } finally {
        for (const answer of waiting.splice(0)) answer();
        held.closeAllConnections();
        held.close();
      }
      assert.equal(before - (await credits(apiKey)), 2, 'only rendered pages are billed');
      // Every slot was given back: a render now succeeds.
      const after = await scrape({ url: `${site.url}/articles/2`, engine: 'browser' }, apiKey);
      assert.equal(after.status, 200, JSON.stringify(after.body));
    });

    test('maxAge serves the workspace’s stored copy without fetching, and the page is searchable at once', async () => {
      const url = `${site.url}/articles/15`;
      const first = await scrape({ url, engine: 'fetch' });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.data.metadata.cached, false);
      const fetched = site.stats.count('/articles/15');
      const again = await scrape({ url, engine: 'fetch', maxAge: 600_000 });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.body.data.metadata.cached, true);
      assert.equal(again.body.data.markdown, first.body.data.markdown);
      assert.equal(site.stats.count('/articles/15'), fetched, 'the site was not asked again');
      assert.deepEqual(again.body.usage, { credits: 1, meters: { page_load: 1 } }, 'a stored copy is a page delivered');
      const other = (await fleet.workspace('pro')).apiKey;
      const theirs = await scrape({ url, engine: 'fetch', maxAge: 600_000 }, other);
      assert.equal(theirs.body.data.metadata.cached, false, 'another workspace’s copy is never served');
      const title = site.article(15).title;
      const found = await call<{ data: { url: string }[] }>(fleet.gatewayUrl, 'POST', '/v1/search', {
        key,
        body: { query: title, limit: 5 },
      });
      assert.ok(
        found.body.data.some((d) => d.url === url),
        `searchable as soon as scraped: ${JSON.stringify(found.body)}`,
      );
    });

    test('the same X-Request-Id twice bills twice: the id the client sets keys no charge', async () => {
      const before = await credits();
      const headers = { 'x-request-id': 'same-request-id' };
      const urls = [`${site.url}/articles/11`, `${site.url}/articles/12`, `${site.url}/articles/13`];
      for (const url of urls) {
        const r = await scrape({ url, engine: 'fetch' }, key, headers);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(r.headers.get('x-request-id'), 'same-request-id', 'still echoed for the logs');
        assert.equal(r.body.data.metadata.url, url, 'each request fetched its own page');
        assert.deepEqual(r.body.usage, { credits: 1, meters: { page_load: 1 } });
      }
      assert.equal(before - (await credits()), 3, 'three pages, three credits');
    });

    test('the same Idempotency-Key in two workspaces is two operations', async () => {
      const other = (await fleet.workspace('pro')).apiKey;
      const body = { url: `${site.url}/articles/14`, engine: 'fetch' };
      const [mineBefore, theirsBefore] = [await credits(), await credits(other)];
      const mine = await scrape(body, key, { 'idempotency-key': 'shared-key' });
      const theirs = await scrape(body, other, { 'idempotency-key': 'shared-key' });
      assert.equal(mine.status, 200, JSON.stringify(mine.body));
      assert.equal(theirs.status, 200, JSON.stringify(theirs.body));
      assert.equal(theirs.headers.get('idempotent-replayed'), null, 'not the other workspace’s answer');
      assert.equal(mineBefore - (await credits()), 1);
      assert.equal(theirsBefore - (await credits(other)), 1);
    });

    test('a retry with the same Idempotency-Key is answered once and billed once', async () => {
      const before = await credits();
      const body = { url: `${site.url}/articles/5` };
      const first = await scrape(body, key, { 'idempotency-key': 'scrape-5' });
      const second = await scrape(body, key, { 'idempotency-key': 'scrape-5' });
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(second.body, first.body);
      assert.equal(before - (await credits()), 1);
      const other = await scrape({ url: `${site.url}/articles/6` }, key, { 'idempotency-key': 'scrape-5' });
      assert.equal(other.status, 400, 'the same key with another body is refused');
    });
  });

  describe('one credit balance', () => {
    test('credits read through the gateway follow changes made behind it (a grant straight to the ledger)', async () => {
      const ws = `grant-${Date.now()}`;
      await fleet.admin('workspace', 'create', ws, '--plan', 'free', '--allowance', '0');
      const { apiKey } = await fleet.admin<{ apiKey: string }>('key', 'create', ws);
      const read = async () =>
        (await call<{ granted: number }>(fleet.gatewayUrl, 'GET', '/v1/credits', { key: apiKey })).body.granted;
      assert.equal(await read(), 0);
      assert.equal(await read(), 0, 'a second read: the gateway now holds the view');
      // The admin command talks to the ledger directly: the gateway hears of it only from the ledger.
      await fleet.admin('credits', 'grant', ws, '7', '--kind', 'promotional');
      // Views live ten minutes in this fleet: only the ledger's announcement can show the grant before then.
      await until('the grant shows', async () => (await read()) === 7);
    });

    test('3 credits buy 3 pages; the fourth is refused and charges nothing', async () => {
      const ws = `three-${Date.now()}`;
      await fleet.admin('workspace', 'create', ws, '--plan', 'free', '--allowance', '0');
      await fleet.admin('credits', 'grant', ws, '3', '--kind', 'promotional');
      const { apiKey } = await fleet.admin<{ apiKey: string }>('key', 'create', ws);
      for (let i = 0; i < 3; i++) {
        const r = await scrape({ url: `${site.url}/articles/${i}` }, apiKey);
        assert.equal(r.status, 200, JSON.stringify(r.body));
      }
      const fourth = await scrape({ url: `${site.url}/articles/9` }, apiKey);
      assert.equal(fourth.status, 402, JSON.stringify(fourth.body));
      assert.equal((fourth.body as unknown as { code: string }).code, 'quota_exceeded');

      const c = await call<{ granted: number; spent: number; remaining: number }>(
        fleet.gatewayUrl,
        'GET',
        '/v1/credits',
        { key: apiKey },
      );
      assert.deepEqual([c.body.granted, c.body.spent, c.body.remaining], [3, 3, 0]);
      const u = await call<{
        total: { credits: number; meters: Record<string, number> };
        byCapability: { capability: string; credits: number }[];
      }>(fleet.gatewayUrl, 'GET', '/v1/usage', { key: apiKey });
      assert.deepEqual(u.body.total, { credits: 3, meters: { page_load: 3 } });
      assert.deepEqual(
        u.body.byCapability.map((b) => [b.capability, b.credits]),
        [['scrape', 3]],
      );
    });
  });
});
