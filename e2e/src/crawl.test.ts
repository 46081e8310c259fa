import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { Fleet } from '@wap/fleet';
import { startFleet, until } from '@wap/testkit';
import { startFakeSearxng, startTestSite, type TestSite } from '@wap/testsite';
import { availableCredits, call } from './api.js';

let fleet: Fleet;
let key: string;
const sites: TestSite[] = [];

before(async () => {
  fleet = await startFleet({
    env: {
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT: '10s',
      // The allow-list lets the fleet reach the loopback test sites; production never sets it.
      EGRESS_ALLOW: '127.0.0.0/8',
      // Short enough that a killed worker's pages come back within the test.
      CRAWL_ACK_WAIT: '2s',
      CRAWL_SWEEP: '500ms',
      CRAWL_IDLE: '5s',
      CRAWL_CONCURRENCY: '24',
      // Pages extracted on a worker thread, as on machines with more than two cores (scrape tests cover the other way).
      EXTRACT_THREADS: '1',
    },
  });
  ({ apiKey: key } = await fleet.workspace('pro'));
});
after(async () => {
  await fleet?.stop();
  await fleet?.dropDatabases();
  for (const site of sites) await site.close();
});

async function site(options: Parameters<typeof startTestSite>[0]) {
  const s = await startTestSite(options);
  sites.push(s);
  return s;
}

interface CrawlJson {
  id: string;
  status: 'running' | 'cancelled' | 'settled';
  outcome: string | null;
  url: string;
  limit: number;
  discovered: number;
  completed: number;
  failed: number;
  skipped: number;
  usage: { credits: number; meters: Record<string, number> };
  failures: { url: string; code: string; details?: Record<string, unknown> }[];
}

interface Page {
  markdown?: string;
  metadata: { sourceURL?: string; url?: string; statusCode?: number; title?: string };
  depth: number;
}

const start = async (body: Record<string, unknown>, apiKey = key) => {
  const r = await call<{ id: string; crawl: CrawlJson }>(fleet.gatewayUrl, 'POST', '/v1/crawl', {
    key: apiKey,
    body,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.id;
};
const get = async (id: string, apiKey = key) =>
  (await call<{ crawl: CrawlJson }>(fleet.gatewayUrl, 'GET', `/v1/crawl/${id}`, { key: apiKey })).body.crawl;
const settled = async (id: string, timeoutMs = 120_000, apiKey = key) => {
  let last: CrawlJson | undefined;
  await until(
    `crawl ${id} settled (last: ${JSON.stringify(last)})`,
    async () => {
      last = await get(id, apiKey);
      return last.status === 'settled';
    },
    timeoutMs,
  );
  return last as CrawlJson;
};
const credits = (apiKey = key) => availableCredits(fleet.gatewayUrl, apiKey);
/** Page loads the ledger has billed the workspace (GET /v1/usage). */
const billedPages = async (apiKey: string) =>
  (
    await call<{ total: { meters: Record<string, number> } }>(fleet.gatewayUrl, 'GET', '/v1/usage', {
      key: apiKey,
    })
  ).body.total.meters.page_load ?? 0;
/** One SQL statement on a service's own database, behind its back (for states the API cannot make). */
const sql = (service: 'crawl' | 'billing-ledger', query: string) =>
  execFileSync('psql', [fleet.databaseUrl(service), '-Atc', query], { encoding: 'utf8' }).trim();

/** Every delivered page, read a page of results at a time with the cursor. */
async function allResults(id: string, pageSize = 10) {
  const pages: Page[] = [];
  let cursor: string | null = '';
  let answers = 0;
  while (cursor !== null) {
    const qs: string = `?limit=${pageSize}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const r = await call<{ data: Page[]; nextCursor: string | null; status: string }>(
      fleet.gatewayUrl,
      'GET',
      `/v1/crawl/${id}/results${qs}`,
      { key },
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(r.body.data.length <= pageSize);
    pages.push(...r.body.data);
    cursor = r.body.nextCursor;
    if (++answers > 1_000) throw new Error('the cursor never ends');
  }
  return pages;
}

const pathsOf = (pages: Page[]) => pages.map((p) => new URL(String(p.metadata.url)).pathname);

describe('crawl', () => {
  test('a small site is crawled whole, once per page, robots.txt respected, billed per delivered page', async () => {
    const s = await site({ pages: 30, extras: false, disallow: ['/articles/7'] });
    const before = await credits();
    const id = await start({
      url: `${s.url}/`,
      limit: 200,
      maxConcurrency: 3,
      scrapeOptions: { formats: ['markdown', 'metadata'] },
    });
    const done = await settled(id);
    const expected = s.paths.filter((p) => p !== '/articles/7');
    assert.equal(done.outcome, 'completed');
    assert.equal(done.completed, expected.length, JSON.stringify(done));
    assert.equal(done.failed, 0, JSON.stringify(done.failures));
    assert.equal(s.stats.count('/articles/7'), 0, 'robots.txt disallows it: never fetched');
    assert.ok(
      (s.stats.maxConcurrentByHost.get(new URL(s.url).host) ?? 0) <= 3,
      `at most 3 at once on the host, saw ${s.stats.maxConcurrentByHost.get(new URL(s.url).host)}`,
    );
    for (const p of expected) assert.equal(s.stats.count(p), 1, `${p} fetched exactly once`);

    const pages = await allResults(id, 7);
    const got = pathsOf(pages);
    assert.equal(new Set(got).size, got.length, 'no page delivered twice');
    assert.deepEqual([...got].sort(), [...expected].sort());
    const article = s.article(3);
    const page3 = pages.find((p) => p.metadata.sourceURL?.endsWith('/articles/3'));
    assert.ok(page3?.markdown?.includes(article.title), 'pages carry their markdown');

    assert.deepEqual(done.usage, { credits: expected.length, meters: { page_load: expected.length } });
    assert.equal(
      before - (await credits()),
      expected.length,
      'the balance paid exactly the delivered pages; the rest of the hold is back',
    );
    assert.deepEqual(await get(id), done, 'polling changes nothing and costs nothing');
  });

  test('the start page does not wait for its sitemaps, and the crawl does not end before they are read', async () => {
    // Links reach the home page's 14 pages within maxDepth 1; only the sitemaps, held until the test
    // lets them go, list the rest.
    let releaseSitemaps = () => {};
    const held = new Promise<void>((resolve) => (releaseSitemaps = resolve));
    const s = await site({ pages: 30, extras: false, sitemapsHeldUntil: held });
    const id = await start({ url: `${s.url}/`, maxDepth: 1, maxConcurrency: 4 });
    try {
      await until('the pages links reach delivered while the sitemaps are held', async () => {
        return (await get(id)).completed >= 14;
      });
      assert.ok(s.stats.count('/sitemap_index.xml') >= 1, 'the sitemaps were asked for');
      assert.equal((await get(id)).status, 'running', 'the crawl waits for its sitemaps');
    } finally {
      releaseSitemaps();
    }
    const done = await settled(id);
    assert.equal(done.outcome, 'completed');
    assert.equal(done.completed, s.paths.length, `every page the sitemaps list: ${JSON.stringify(done)}`);
    assert.equal(done.discovered, s.paths.length);
    for (const p of s.paths) assert.equal(s.stats.count(p), 1, `${p} fetched exactly once`);
  });

  test("sitemap 'only' follows what the sitemaps list and no link", async () => {
    const s = await site({ pages: 12, extras: false, sitemapDelayMs: 300 });
    const id = await start({ url: `${s.url}/`, sitemap: 'only', maxConcurrency: 4 });
    const done = await settled(id);
    assert.equal(done.outcome, 'completed');
    assert.equal(done.completed, s.paths.length, JSON.stringify(done));
  });

  test("robots.txt's Crawl-delay spaces the requests to a host, whatever maxConcurrency says", async () => {
    const s = await site({ pages: 2, extras: false, crawlDelay: 0.5 });
    const id = await start({ url: `${s.url}/`, maxConcurrency: 5, sitemap: 'skip' });
    const done = await settled(id);
    assert.equal(done.completed, s.paths.length);
    const pages = s.stats.arrivals.filter((a) => s.paths.includes(a.target));
    assert.equal(pages.length, s.paths.length);
    // Spaced on the crawler's side: one request's arrival can lag its start on a busy machine, so the
    // requests are judged over their whole span, which no crawl that ignored the delay could reach.
    const span = (pages.at(-1)?.at ?? 0) - (pages[0]?.at ?? 0);
    assert.ok(span >= (pages.length - 1) * 450, `${pages.length} pages came within ${span} ms`);
  });

  test('a small crawl is not stuck behind a big one on another host', async () => {
    const big = await site({ pages: 400, extras: false, latencyMs: 100 });
    const small = await site({ pages: 3, extras: false });
    const bigId = await start({ url: `${big.url}/`, limit: 400, maxConcurrency: 2 });
    await until('the big crawl is under way', async () => (await get(bigId)).completed >= 3, 30_000);
    // The big one needs 20 s at least (400 pages, 100 ms each, two at a time): not stuck, the small one ends first.
    const smallDone = await settled(await start({ url: `${small.url}/`, limit: 50 }), 30_000);
    assert.equal(smallDone.completed, small.paths.length);
    assert.equal((await get(bigId)).status, 'running', 'the big crawl is still going');
    await call(fleet.gatewayUrl, 'POST', `/v1/crawl/${bigId}/cancel`, { key });
    await settled(bigId, 30_000);
  });

  test('limit 50 over a 500-page site at high concurrency delivers and bills exactly 50', async () => {
    const s = await site({ pages: 500, extras: false });
    const before = await credits();
    const id = await start({ url: `${s.url}/`, limit: 50, maxConcurrency: 20 });
    const done = await settled(id);
    assert.equal(done.outcome, 'limit_reached');
    assert.equal(done.completed, 50);
    assert.equal((await allResults(id, 100)).length, 50);
    assert.equal(done.usage.credits, 50);
    assert.equal(before - (await credits()), 50);
  });

  test('a cancelled crawl keeps its delivered pages and its bill, and takes no new page', async () => {
    const s = await site({ pages: 300, extras: false, latencyMs: 100 });
    const before = await credits();
    const id = await start({ url: `${s.url}/`, limit: 300, maxConcurrency: 2 });
    await until('10 pages delivered', async () => (await get(id)).completed >= 10, 60_000);
    const early = await call<{ data: Page[]; nextCursor: string | null; status: string }>(
      fleet.gatewayUrl,
      'GET',
      `/v1/crawl/${id}/results?limit=100`,
      { key },
    );
    assert.equal(early.body.status, 'running', 'results answer while the crawl runs');
    assert.ok(early.body.data.length >= 10);
    assert.ok(early.body.nextCursor, 'a running crawl always gives a cursor to come back with');
    const r = await call<{ crawl: CrawlJson }>(fleet.gatewayUrl, 'POST', `/v1/crawl/${id}/cancel`, { key });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(['cancelled', 'settled'].includes(r.body.crawl.status));
    const done = await settled(id, 30_000);
    assert.equal(done.outcome, 'cancelled');
    assert.ok(done.completed < 300);
    const requests = s.stats.total;
    // Nothing can be fetched any more: the frontier has no URL left to take or being taken.
    const open = sql(
      'crawl',
      `SELECT count(*) FROM crawl_urls WHERE crawl_id = '${id.replace(/^crawl_/, '')}' AND state IN ('pending', 'fetching')`,
    );
    assert.equal(open, '0', 'no URL left to take');
    assert.equal((await allResults(id)).length, done.completed, 'every delivered page is still readable');
    assert.equal(before - (await credits()), done.completed, 'billed for what was delivered, the rest released');
    const again = await call<{ crawl: CrawlJson }>(fleet.gatewayUrl, 'POST', `/v1/crawl/${id}/cancel`, { key });
    assert.deepEqual(again.body.crawl, done, 'cancelling a settled crawl changes nothing');
    assert.equal(s.stats.total, requests, 'nothing fetched after settling');
  });

  test('a running crawl bills its pages in blocks of 25 as they are delivered; settled, the ledger agrees with it', async () => {
    // A workspace of its own, so its usage is this crawl's alone.
    const { apiKey } = await fleet.workspace('scale');
    const s = await site({ pages: 300, extras: false, latencyMs: 100 });
    const id = await start({ url: `${s.url}/`, limit: 120, maxConcurrency: 2 }, apiKey);
    const billed = () => billedPages(apiKey);
    await until('the first block billed', async () => (await billed()) >= 25, 60_000);
    const running = await get(id, apiKey);
    assert.equal(running.status, 'running', 'billed while it runs, not only at the end');
    const soFar = await billed();
    assert.equal(soFar % 25, 0, 'whole blocks while it runs');
    assert.ok(soFar <= running.completed, 'never a page before it is delivered');
    const done = await settled(id, 120_000, apiKey);
    assert.equal(done.completed, 120);
    assert.equal(await billed(), done.completed, 'the last block billed with the remainder');
  });

  test('a crawl whose hold passes its lifetime mid-crawl still bills every page it delivered (charged instead)', async () => {
    const { apiKey } = await fleet.workspace('scale');
    const s = await site({ pages: 300, extras: false, latencyMs: 100 });
    const id = await start({ url: `${s.url}/`, limit: 60, maxConcurrency: 2 }, apiKey);
    await until('5 pages delivered', async () => (await get(id, apiKey)).completed >= 5, 60_000);
    // The hold runs out under the running crawl (as after 13 hours): its blocks can no longer be settled.
    const holdId = sql('crawl', `SELECT hold_id FROM crawls WHERE id = '${id.replace(/^crawl_/, '')}'`);
    assert.match(holdId, /^[0-9a-f-]{36}$/);
    sql('billing-ledger', `UPDATE holds SET expires_at = now() WHERE id = '${holdId}'`);
    const done = await settled(id, 120_000, apiKey);
    assert.equal(done.completed, 60);
    assert.equal(await billedPages(apiKey), 60, 'every delivered page billed, those past the hold charged');
  });

  test('a crawl worker killed mid-crawl loses no page and charges none twice', async () => {
    const s = await site({ pages: 120, extras: false, latencyMs: 150 });
    const replica = await fleet.replica('crawl');
    const before = await credits();
    const id = await start({ url: `${s.url}/`, limit: 500, maxConcurrency: 10 });
    await until('20 pages delivered', async () => (await get(id)).completed >= 20, 60_000);
    assert.notEqual(await replica.stop('SIGKILL'), 0, 'the replica was killed');
    const done = await settled(id, 120_000);
    assert.equal(done.outcome, 'completed');
    assert.equal(done.completed, s.paths.length, JSON.stringify(done));
    const got = pathsOf(await allResults(id, 100));
    assert.equal(new Set(got).size, got.length, 'no page delivered twice');
    assert.deepEqual([...got].sort(), [...s.paths].sort(), 'no page lost');
    assert.equal(before - (await credits()), s.paths.length, 'each page charged once');
  });

  test('loops, a crawler trap and 13 spellings of one URL: each page fetched once, the trap bounded, the crawl ends', async () => {
    const s = await site({ pages: 5, extras: true });
    const id = await start({
      url: `${s.url}/`,
      limit: 60,
      maxDepth: 4,
      sitemap: 'skip',
      includePaths: ['^/$', '^/variants', '^/loop/', '^/trap/', '^/articles/'],
    });
    const done = await settled(id);
    assert.equal(done.outcome, 'completed', JSON.stringify(done));
    for (const p of ['/loop/0', '/loop/1', '/loop/2', '/variants'])
      assert.equal(s.stats.count(p), 1, `${p} fetched ${s.stats.count(p)} times`);
    // 13 spellings of /articles/3 are two URLs: without a query, and with a=1 and b=2 in either order.
    const article3 = [...s.stats.requests].filter(([t]) => new URL(t, s.url).pathname === '/articles/3');
    assert.equal(article3.length, 2, JSON.stringify(article3));
    assert.ok(
      article3.every(([, n]) => n === 1),
      JSON.stringify(article3),
    );
    // /trap/n is found at depth n + 1 from the home page: maxDepth 4 stops it at /trap/3.
    const trap = [...s.stats.requests.keys()].filter((t) => t.startsWith('/trap/'));
    assert.deepEqual([...new Set(trap.map((t) => new URL(t, s.url).pathname))].sort(), [
      '/trap/0',
      '/trap/1',
      '/trap/2',
      '/trap/3',
    ]);
    const got = (await allResults(id, 100)).map((p) => String(p.metadata.url));
    assert.equal(new Set(got).size, got.length, `no URL delivered twice: ${got.join(' ')}`);
    assert.equal(got.length, done.completed);
  });

  test('a redirect to a page the crawl already has is not delivered or billed twice', async () => {
    const s = await site({ pages: 5, extras: true });
    const before = await credits();
    const id = await start({
      url: `${s.url}/`,
      limit: 50,
      maxDepth: 1,
      sitemap: 'skip',
      includePaths: ['^/$', '^/redirect/chain/', '^/articles/'],
    });
    const done = await settled(id);
    const landed = (await allResults(id, 100)).map((p) => String(p.metadata.url));
    assert.equal(new Set(landed).size, landed.length, `a final URL delivered twice: ${landed.join(' ')}`);
    assert.ok(landed.includes(`${s.url}/articles/1`), '/redirect/chain/3 lands on /articles/1');
    assert.ok(s.stats.count('/redirect/chain/3') === 1, 'the redirect was followed');
    assert.equal(done.completed, landed.length);
    assert.equal(before - (await credits()), done.completed, 'the duplicate was not billed');
  });

  test('pages that fail are listed with their code and not billed', async () => {
    const s = await site({ pages: 3, extras: true });
    const before = await credits();
    const id = await start({
      url: `${s.url}/`,
      limit: 100,
      maxDepth: 1,
      includePaths: ['^/$', '^/articles/', '^/missing-page', '^/redirect/private', '^/status/'],
    });
    const done = await settled(id);
    assert.deepEqual(
      done.failures.map((f) => new URL(f.url).pathname).sort(),
      ['/missing-page', '/redirect/private', '/status/404', '/status/500'],
      JSON.stringify(done.failures),
    );
    assert.equal(done.failed, 4);
    assert.equal(done.outcome, 'completed', 'pages were delivered: pages that failed do not fail the crawl');
    for (const f of done.failures) assert.equal(f.code, 'page_unreachable', JSON.stringify(f));
    assert.equal(before - (await credits()), done.completed, 'only delivered pages are billed');
  });
});

describe('crawl errors', () => {
  test('a start page that fails settles the crawl at once as failed: its failure listed, nothing billed, the hold released', async () => {
    const s = await site({ pages: 1, extras: false });
    const before = await credits();
    const usageBefore = await billedPages(key);
    // With its sitemaps on: a start page that fails ends the crawl, and what they list is not followed.
    const id = await start({ url: `${s.url}/status/500`, limit: 20 });
    const done = await settled(id);
    assert.deepEqual([done.status, done.outcome], ['settled', 'failed']);
    assert.deepEqual([done.completed, done.failed], [0, 1]);
    const [failure] = done.failures;
    assert.deepEqual(
      [new URL(failure?.url ?? '').pathname, failure?.code, failure?.details?.reason, failure?.details?.status],
      ['/status/500', 'page_unreachable', 'http_status', 500],
      JSON.stringify(done.failures),
    );
    assert.deepEqual(done.usage, { credits: 0, meters: {} });
    assert.equal(await credits(), before, 'the 20 credits held at start are all back');
    assert.equal(await billedPages(key), usageBefore, 'no page billed');
    const results = await call<{ status: string; data: unknown[]; nextCursor: string | null }>(
      fleet.gatewayUrl,
      'GET',
      `/v1/crawl/${id}/results`,
      { key },
    );
    assert.deepEqual([results.body.status, results.body.data, results.body.nextCursor], ['settled', [], null]);
  });

  test('another workspace’s crawl is not found, exactly as a missing one', async () => {
    const s = await site({ pages: 2, extras: false });
    const id = await start({ url: `${s.url}/`, limit: 5 });
    const other = (await fleet.workspace('pro')).apiKey;
    for (const [method, path] of [
      ['GET', `/v1/crawl/${id}`],
      ['GET', `/v1/crawl/${id}/results`],
      ['POST', `/v1/crawl/${id}/cancel`],
      ['GET', '/v1/crawl/00000000-0000-4000-8000-000000000000'],
      ['GET', '/v1/crawl/not-an-id'],
    ] as const) {
      const r = await call<{ code: string; message: string }>(fleet.gatewayUrl, method, path, { key: other });
      assert.equal(r.status, 404, `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(r.body, { code: 'not_found', message: r.body.message });
    }
    assert.equal((await settled(id)).status, 'settled', 'the owner’s crawl went on untouched');
  });

  test('bad options are 400 with the field, and hold nothing', async () => {
    const before = await credits();
    for (const [body, field] of [
      [{ url: 'http://127.0.0.1:1/', limit: 0 }, 'body.limit'],
      [{ url: 'http://127.0.0.1:1/', includePaths: ['(unclosed'] }, 'body.includePaths.0'],
      [{ url: 'ftp://example.com/' }, 'body.url'],
    ] as const) {
      const r = await call<{ code: string; details: { issues: { path: string }[] } }>(
        fleet.gatewayUrl,
        'POST',
        '/v1/crawl',
        { key, body },
      );
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.code, 'bad_request');
      assert.ok(
        r.body.details.issues.some((i) => i.path === field),
        JSON.stringify(r.body.details),
      );
    }
    const s = await site({ pages: 1, extras: false });
    const id = await start({ url: `${s.url}/`, limit: 5 });
    const bad = await call<{ code: string }>(fleet.gatewayUrl, 'GET', `/v1/crawl/${id}/results?cursor=bm9wZQ`, { key });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    await settled(id);
    assert.equal(before - (await credits()), (await get(id)).completed);
  });

  test('a private start address is refused before anything is held', async () => {
    const before = await credits();
    const r = await call<{ code: string; details: { reason: string } }>(fleet.gatewayUrl, 'POST', '/v1/crawl', {
      key,
      body: { url: 'http://10.1.2.3/', limit: 10 },
    });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, 'page_unreachable');
    assert.equal(r.body.details.reason, 'private_address');
    assert.equal(await credits(), before);
  });

  test('a limit the balance cannot hold is refused with quota_exceeded', async () => {
    await fleet.admin('workspace', 'create', 'poor-crawler', '--plan', 'free', '--allowance', '3');
    const { apiKey } = await fleet.admin<{ apiKey: string }>('key', 'create', 'poor-crawler');
    const r = await call<{ code: string }>(fleet.gatewayUrl, 'POST', '/v1/crawl', {
      key: apiKey,
      body: { url: 'http://127.0.0.1:1/', limit: 10 },
    });
    assert.equal(r.status, 402, JSON.stringify(r.body));
    assert.equal(r.body.code, 'quota_exceeded');
  });
});

interface SearchReply {
  success: boolean;
  data: { url: string; title: string; description: string; markdown?: string; error?: string }[];
  provider: string;
  usage: { credits: number; meters: Record<string, number> };
}
const search = (body: Record<string, unknown>, apiKey = key) =>
  call<SearchReply>(fleet.gatewayUrl, 'POST', '/v1/search', { key: apiKey, body });

describe('search', () => {
  test('the built-in index finds the pages this workspace crawled, and bills 5 credits per 10 results', async () => {
    const s = await site({ pages: 12, extras: false });
    await settled(await start({ url: `${s.url}/`, limit: 50 }));
    const article = s.article(5);
    const before = await credits();
    const r = await search({ query: article.title, limit: 4 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.provider, 'builtin');
    assert.equal(r.body.data[0]?.url, `${s.url}/articles/5`, JSON.stringify(r.body.data.map((d) => d.url)));
    assert.equal(r.body.data[0]?.title, article.title);
    const n = r.body.data.length;
    assert.deepEqual(r.body.usage, { credits: n / 2, meters: { search_result: n } });
    assert.equal(before - (await credits()), n / 2);
  });

  test('another workspace’s pages are never found', async () => {
    const other = (await fleet.workspace('pro')).apiKey;
    const r = await search({ query: 'County Archive', limit: 10 }, other);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data, []);
    assert.deepEqual(r.body.usage, { credits: 0, meters: {} }, 'no results, no charge');
  });

  test('rendering every hit bills one page each on top of the results', async () => {
    const before = await credits();
    const r = await search({ query: 'County Archive', limit: 2, scrapeOptions: { formats: ['markdown'] } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.length, 2);
    for (const hit of r.body.data) assert.ok((hit.markdown ?? '').length > 0, JSON.stringify(hit));
    assert.deepEqual(r.body.usage, { credits: 3, meters: { search_result: 2, page_load: 2 } });
    assert.equal(before - (await credits()), 3);
  });

  test('through SearXNG: its results come back; its refusal is search_refused and costs nothing', async () => {
    const fake = await startFakeSearxng([
      { url: 'https://example.org/tides', title: 'Tide tables', content: 'High and low water at the harbour.' },
      { url: 'https://example.org/boats', title: 'Fishing boats', content: 'Boats of the harbour.' },
    ]);
    await fleet.stopOne('crawl');
    fleet.startOne('crawl', { SEARCH_PROVIDER: 'searxng', SEARXNG_URL: fake.url });
    try {
      await fleet.waitReady(60_000);
      const r = await search({ query: 'harbour', limit: 5 });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.provider, 'searxng');
      assert.deepEqual(
        r.body.data.map((d) => d.url),
        ['https://example.org/tides', 'https://example.org/boats'],
      );
      assert.deepEqual(r.body.usage, { credits: 1, meters: { search_result: 2 } });

      fake.failWith = { status: 403, body: 'Forbidden' };
      const before = await credits();
      const refused = await call<{ code: string }>(fleet.gatewayUrl, 'POST', '/v1/search', {
        key,
        body: { query: 'harbour' },
      });
      assert.equal(refused.status, 422, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'search_refused');
      assert.equal(await credits(), before, 'a refused search bills nothing');
    } finally {
      await fleet.stopOne('crawl');
      fleet.startOne('crawl');
      await fleet.waitReady(60_000);
      await fake.close();
    }
  });
});

describe('keys a client sets', () => {
  test('the same X-Request-Id twice starts two crawls and a search bills twice', async () => {
    const s = await site({ pages: 3, extras: false });
    const headers = { 'x-request-id': 'client-chosen' };
    const ids: string[] = [];
    for (const url of [`${s.url}/articles/1`, `${s.url}/articles/2`]) {
      const r = await call<{ id: string; crawl: CrawlJson }>(fleet.gatewayUrl, 'POST', '/v1/crawl', {
        key,
        body: { url, limit: 1, sitemap: 'skip' },
        headers,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      ids.push(r.body.id);
    }
    assert.notEqual(ids[0], ids[1], 'two crawls');
    const done = await Promise.all(ids.map((id) => settled(id)));
    assert.deepEqual(
      done.map((c) => [c.url, c.completed]),
      [
        [`${s.url}/articles/1`, 1],
        [`${s.url}/articles/2`, 1],
      ],
    );

    const before = await credits();
    const billed: number[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await call<SearchReply>(fleet.gatewayUrl, 'POST', '/v1/search', {
        key,
        body: { query: s.article(1).title, limit: 2 },
        headers,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.data.length, 2, JSON.stringify(r.body.data));
      billed.push(r.body.usage.credits);
    }
    assert.deepEqual(billed, [1, 1], 'each search answered its own charge');
    assert.equal(before - (await credits()), 2, 'and both were billed');
  });

  test('the same Idempotency-Key starts one crawl; with another body it is refused', async () => {
    const s = await site({ pages: 3, extras: false });
    const headers = { 'idempotency-key': `crawl-${Date.now()}` };
    const body = { url: `${s.url}/articles/1`, limit: 1, sitemap: 'skip' };
    const first = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/crawl', { key, body, headers });
    const again = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/crawl', { key, body, headers });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.id, first.body.id);
    const other = await call<{ code: string }>(fleet.gatewayUrl, 'POST', '/v1/crawl', {
      key,
      body: { ...body, url: `${s.url}/articles/2` },
      headers,
    });
    assert.equal(other.status, 400, JSON.stringify(other.body));
    assert.equal(other.body.code, 'bad_request');
  });
});

describe('retention', () => {
  test('a settled crawl and its pages are deleted after the retention time, then answer 404', async () => {
    await fleet.stopOne('crawl');
    fleet.startOne('crawl', { CRAWL_RETENTION: '3s' });
    try {
      await fleet.waitReady(60_000);
      const s = await site({ pages: 2, extras: false });
      const id = await start({ url: `${s.url}/`, limit: 10 });
      const done = await settled(id);
      assert.ok(done.completed > 0);
      const results = await call(fleet.gatewayUrl, 'GET', `/v1/crawl/${id}/results`, { key });
      assert.equal(results.status, 200, 'readable while kept');
      await until(
        'the crawl is gone',
        async () => (await call(fleet.gatewayUrl, 'GET', `/v1/crawl/${id}`, { key })).status === 404,
        20_000,
      );
      const gone = await call<{ code: string }>(fleet.gatewayUrl, 'GET', `/v1/crawl/${id}/results`, { key });
      assert.equal(gone.status, 404);
      assert.equal(gone.body.code, 'not_found');
    } finally {
      await fleet.stopOne('crawl');
      fleet.startOne('crawl');
      await fleet.waitReady(60_000);
    }
  });
});
