// The composition root as production wires it (openCrawl), served in-process
// against real Postgres, NATS, a real ledger and a local site: a crawl goes
// from StartCrawl through the frontier and the worker to its pages and its bill.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { timestampMs } from '@bufbuild/protobuf/wkt';
import { until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { type InProcessCrawl, proWorkspace, serveCrawl } from './test-support.js';

let served: InProcessCrawl;
let site: TestSite;

before(async () => {
  site = await startTestSite({ pages: 6, extras: false, latencyMs: 20 });
  served = await serveCrawl();
});

after(async () => {
  await served?.close();
  await site?.close();
});

const workspace = () => proWorkspace(served);

const spent = async (workspaceId: string) => {
  const c = await served.ledger.client.credits({ workspaceId });
  return { spent: c.spentMillicredits + c.allowanceSpentMillicredits, held: c.heldMillicredits };
};

/** A crawl of the whole local site. */
async function startSiteCrawl(workspaceId: string) {
  const { crawl } = await served.client.startCrawl({
    workspaceId,
    requestId: randomUUID(),
    url: `${site.url}/`,
    options: { limit: 100, maxDepth: 5 },
  });
  assert.ok(crawl);
  return crawl;
}

async function settled(workspaceId: string, crawlId: string) {
  await until(
    'the crawl settled',
    async () => (await served.client.getCrawl({ workspaceId, crawlId })).crawl?.status === 'settled',
  );
  const crawl = (await served.client.getCrawl({ workspaceId, crawlId })).crawl;
  assert.ok(crawl);
  return crawl;
}

test('a crawl runs through the frontier and the worker: every page delivered, read back and billed once', async () => {
  const workspaceId = await workspace();
  const before = await spent(workspaceId);
  const startedAt = Date.now();
  const started = await startSiteCrawl(workspaceId);
  const done = await settled(workspaceId, started.id);
  assert.equal(done.outcome, 'completed');
  assert.equal(done.completed, site.paths.length);
  const { retentionMs } = served.deps;
  const expires = (c: typeof done) => timestampMs(c.expiresAt ?? assert.fail('no expiresAt'));
  assert.ok(
    expires(started) >= startedAt + retentionMs && expires(started) <= Date.now() + retentionMs,
    'a running crawl is kept a retention from now at least',
  );
  assert.equal(
    expires(done) - timestampMs(done.finishedAt ?? assert.fail('no finishedAt')),
    retentionMs,
    'a settled crawl is deleted a retention after it settled',
  );

  const urls: string[] = [];
  let cursor = '';
  do {
    const page = await served.client.crawlResults({ workspaceId, crawlId: started.id, cursor, pageSize: 4 });
    urls.push(...page.pages.map((p) => new URL(p.document?.url ?? '').pathname));
    cursor = page.nextCursor;
  } while (cursor);
  assert.deepEqual(urls.toSorted(), site.paths.toSorted());

  const after = await spent(workspaceId);
  assert.equal(after.held, 0n, 'the rest of the hold is released');
  assert.equal(after.spent - before.spent, done.usage?.millicredits, 'the bill is what the crawl says it spent');
});

test('a cancelled crawl settles as cancelled and keeps nothing held', async () => {
  const workspaceId = await workspace();
  const started = await startSiteCrawl(workspaceId);
  await served.client.cancelCrawl({ workspaceId, crawlId: started.id });
  const done = await settled(workspaceId, started.id);
  assert.equal(done.outcome, 'cancelled');
  assert.ok(done.completed < site.paths.length, 'no page started after the cancel');
  assert.equal((await spent(workspaceId)).held, 0n);
});

test('a scrape is billed one page, and nothing when its caller bills the page itself', async () => {
  const workspaceId = await workspace();
  const url = `${site.url}${site.paths[1]}`;
  const before = await spent(workspaceId);
  const billed = await served.client.scrape({ workspaceId, requestId: randomUUID(), url, options: {} });
  assert.equal(billed.usage?.millicredits, 1_000n);
  const mid = await spent(workspaceId);
  assert.equal(mid.spent - before.spent, 1_000n);
  const own = await served.client.scrape({
    workspaceId,
    requestId: randomUUID(),
    url,
    options: { maxAgeMs: 0n },
    billedByCaller: true,
  });
  assert.ok(own.document?.markdown, 'the page is there');
  assert.equal(own.usage, undefined, 'no usage: nothing was charged here');
  assert.deepEqual(await spent(workspaceId), mid, 'the balance did not move');
});

test('a scrape with maxAge takes the workspace’s stored copy, unfetched and billed one page; another workspace’s is fetched', async () => {
  const workspaceId = await workspace();
  const url = `${site.url}${site.paths[2]}`;
  const path = new URL(url).pathname;
  const scrape = (ws: string, maxAgeMs: bigint) =>
    served.client.scrape({ workspaceId: ws, requestId: randomUUID(), url, options: { maxAgeMs } });
  const first = await scrape(workspaceId, 0n);
  assert.equal(first.document?.cached, false);
  const fetches = site.stats.count(path);
  const again = await scrape(workspaceId, 600_000n);
  assert.equal(again.document?.cached, true, 'the stored copy answers');
  assert.equal(again.document?.markdown, first.document?.markdown);
  assert.equal(again.usage?.millicredits, 1_000n, 'a copy is billed one page');
  assert.equal(site.stats.count(path), fetches, 'the page was not fetched again');
  const theirs = await scrape(await workspace(), 600_000n);
  assert.equal(theirs.document?.cached, false, 'a copy is its workspace’s own');
  assert.equal(site.stats.count(path), fetches + 1);
});

test('a crawl whose start page robots.txt forbids ends failed, saying so, and bills nothing', async () => {
  const forbidding = await startTestSite({ pages: 3, extras: false, disallow: ['/'] });
  try {
    const workspaceId = await workspace();
    const before = await spent(workspaceId);
    const start = `${forbidding.url}/`;
    const { crawl: started } = await served.client.startCrawl({
      workspaceId,
      requestId: randomUUID(),
      url: start,
      options: { limit: 10, maxDepth: 2 },
    });
    assert.ok(started);
    const done = await settled(workspaceId, started.id);
    assert.equal(done.outcome, 'failed');
    assert.deepEqual([done.completed, done.failed, done.skipped], [0, 1, 0]);
    assert.deepEqual(
      done.failures.map((f) => ({ url: f.url, code: f.code, details: f.details })),
      [{ url: start, code: 'page_unreachable', details: { url: start, reason: 'blocked' } }],
    );
    assert.equal(forbidding.stats.count('/'), 0, 'the start page is never fetched');
    assert.equal(done.usage?.millicredits, 0n);
    assert.deepEqual(await spent(workspaceId), { spent: before.spent, held: 0n }, 'nothing billed, nothing held');
  } finally {
    await forbidding.close();
  }
});

test('a batch scrape is a crawl of its pages alone: each scraped once, no link followed, billed a page each', async () => {
  const workspaceId = await workspace();
  const before = await spent(workspaceId);
  const pages = ['/articles/1', '/articles/2', '/articles/3'].map((p) => `${site.url}${p}`);
  const { crawl: started } = await served.client.startCrawl({
    workspaceId,
    requestId: randomUUID(),
    urls: [...pages, pages[0] as string, `${site.url}/articles/2#again`],
    options: { scrapeOptions: {} },
  });
  assert.ok(started);
  assert.equal(started.options?.batch, true);
  assert.equal(started.limit, 3, 'one page per distinct URL, and as many credits held');
  const done = await settled(workspaceId, started.id);
  assert.equal(done.outcome, 'completed');
  assert.deepEqual([done.discovered, done.completed, done.failed], [3, 3, 0], 'nothing discovered beyond the pages');
  const read = await served.client.crawlResults({ workspaceId, crawlId: started.id, cursor: '', pageSize: 10 });
  assert.deepEqual(read.pages.map((p) => p.document?.url).toSorted(), pages.toSorted());
  const after = await spent(workspaceId);
  assert.equal(after.spent - before.spent, 3_000n);
  assert.equal(after.held, 0n);
});

test('a batch with a URL that may not be fetched is refused, naming it, before anything is held', async () => {
  const workspaceId = await workspace();
  await assert.rejects(
    served.client.startCrawl({
      workspaceId,
      requestId: randomUUID(),
      urls: [`${site.url}/articles/1`, 'ftp://example.com/file'],
      options: {},
    }),
    (err: { code?: string; details?: { issues?: { path: string }[] } }) => {
      assert.equal(err.code, 'bad_request');
      assert.equal(err.details?.issues?.[0]?.path, 'urls.1');
      return true;
    },
  );
  assert.equal((await spent(workspaceId)).held, 0n);
});

test('ListCrawls: the workspace’s crawls until they settle, never another workspace’s', async () => {
  const slow = await startTestSite({ pages: 4, extras: false, latencyMs: 300 });
  try {
    const workspaceId = await workspace();
    const { crawl: started } = await served.client.startCrawl({
      workspaceId,
      requestId: randomUUID(),
      url: `${slow.url}/`,
      options: { limit: 10, maxDepth: 2 },
    });
    assert.ok(started);
    const listed = await served.client.listCrawls({ workspaceId });
    assert.deepEqual(
      listed.crawls.map((c) => [c.id, c.url]),
      [[started.id, `${slow.url}/`]],
    );
    assert.deepEqual((await served.client.listCrawls({ workspaceId: await workspace() })).crawls, []);
    await settled(workspaceId, started.id);
    assert.deepEqual((await served.client.listCrawls({ workspaceId })).crawls, []);
  } finally {
    await slow.close();
  }
});
