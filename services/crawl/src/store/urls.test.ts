// The frontier's steps against a real Postgres with every migration applied:
// batched takes decide exactly what single ones would, and a URL given back too
// often fails. Deliveries are in deliveries.test.ts, downloads done in
// downloads-done.test.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type FreshStores, freshStores, TEST_HOST, TEST_TAKE, testUrl } from '../test-support.js';
import type { CrawlStore } from './crawls.js';
import type { CrawlDatabase } from './database.js';
import type { PageStore } from './pages.js';
import type { UrlStore } from './urls.js';

let stores: FreshStores;
let db: CrawlDatabase;
let crawls: CrawlStore;
let urls: UrlStore;
let pages: PageStore;

before(async () => {
  stores = await freshStores();
  ({ db, crawls, urls, pages } = stores);
});

after(() => stores.drop());

test('takes of one moment share a batch; with no politeness gap every one of them fetches', async () => {
  const keys = Array.from({ length: 12 }, (_, i) => `p${i}`);
  const id = await stores.crawlWith(keys);
  const before = urls.batching.takes.batches;
  // Twice: the second round runs right after the first committed (a take timed by its
  // transaction's start, or rounded up to the millisecond, answered "wait 1 ms" here).
  for (const round of [keys.slice(0, 6), keys.slice(6)]) {
    const takes = await Promise.all(round.map((k) => urls.take(id, testUrl(k).key, TEST_TAKE)));
    assert.deepEqual(
      takes.map((t) => t.kind),
      round.map(() => 'fetch'),
    );
  }
  assert.equal(urls.batching.takes.batches - before, 2, 'each round went as one batch');
  const row = await crawls.crawl(id);
  assert.equal(row?.claimed, 13);
});

test('within one batch a host gets no more than maxPerHost, and its gap spaces the takes', async () => {
  const keys = ['a', 'b', 'c', 'd', 'e'];
  const busy = await stores.crawlWith(keys);
  const takes = await Promise.all(keys.map((k) => urls.take(busy, testUrl(k).key, { ...TEST_TAKE, maxPerHost: 2 })));
  assert.deepEqual(
    takes.map((t) => t.kind),
    ['fetch', 'fetch', 'wait', 'wait', 'wait'],
  );

  // A gap far longer than the test: the wait answered is the gap less the moment since the start page's take.
  const polite = await stores.crawlWith(['x', 'y'], { gapMs: 600_000 });
  const spaced = await Promise.all(['x', 'y'].map((k) => urls.take(polite, testUrl(k).key, TEST_TAKE)));
  assert.equal(spaced[0]?.kind, 'wait', 'the start page was taken a moment ago');
  assert.ok(spaced[0]?.kind === 'wait' && spaced[0].ms > 540_000 && spaced[0].ms <= 600_000);
  assert.equal(spaced[1]?.kind, 'wait');
});

test('the limit holds within a batch: claims stop at the limit and the rest wait for pages in flight', async () => {
  const keys = ['l1', 'l2', 'l3', 'l4'];
  const id = await stores.crawlWith(keys, { limit: 3 });
  const takes = await Promise.all(keys.map((k) => urls.take(id, testUrl(k).key, TEST_TAKE)));
  assert.deepEqual(
    takes.map((t) => t.kind),
    ['fetch', 'fetch', 'wait', 'wait'],
  );
  assert.equal((await crawls.crawl(id))?.claimed, 3);
});

test('a closed crawl takes nothing, even a URL that reached it after it closed', async () => {
  const id = await stores.crawlWith(['late0']);
  await crawls.close(id, 'expired');
  // As a sitemap insert racing the close would leave it.
  await db.pool.query(`INSERT INTO crawl_urls (crawl_id, url_key, url, host, depth) VALUES ($1, $2, $2, $3, 1)`, [
    id,
    testUrl('late').key,
    TEST_HOST,
  ]);
  assert.equal((await urls.take(id, testUrl('late').key, TEST_TAKE)).kind, 'stopped');
  assert.equal((await crawls.crawl(id))?.completed, 1);
});

test('a URL whose tries keep failing for a reason not its own fails on its last try, recorded and given back', async () => {
  const id = await stores.crawlWith(['dead', 'alive']);
  const dead = testUrl('dead').key;
  const failure = { code: 'internal', details: { attempts: 3 }, maxAttempts: 3 };
  for (const expected of ['released', 'released', 'failed'] as const) {
    assert.equal((await urls.take(id, dead, TEST_TAKE)).kind, 'fetch');
    assert.equal(await urls.release(id, dead, failure), expected);
  }
  assert.deepEqual(await urls.take(id, dead, TEST_TAKE), { kind: 'finished', state: 'failed' });
  assert.equal(await urls.release(id, dead, failure), 'not-mine', 'no longer fetching: nothing to give back');
  assert.deepEqual(await pages.failures(id, 10), [
    { url: testUrl('dead').url, code: 'internal', details: { attempts: 3 } },
  ]);
  const row = await crawls.crawl(id);
  assert.deepEqual(
    [row?.failed, row?.claimed],
    [1, 1],
    'failed counted, its claim given back (the start page keeps its)',
  );
  // A release without a failure (a worker stopping) does not count a try.
  const alive = testUrl('alive').key;
  for (let i = 0; i < 5; i++) {
    assert.equal((await urls.take(id, alive, TEST_TAKE)).kind, 'fetch');
    assert.equal(await urls.release(id, alive), 'released');
  }
  assert.equal((await urls.take(id, alive, TEST_TAKE)).kind, 'fetch');
});
