// The frontier's steps against a real Postgres with every migration applied:
// batched takes, downloads and deliveries decide exactly what single ones
// would, and a URL given back too often fails.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { until } from '@wap/testkit';
import { type FreshStores, freshStores, TEST_HOST, TEST_TAKE, testIndexFields, testUrl } from '../test-support.js';
import type { CrawlStore } from './crawls.js';
import type { CrawlDatabase } from './database.js';
import type { PageStore } from './pages.js';
import { UrlStore } from './urls.js';

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
  // The freed places (downloads done) go with this worker's next takes and let them in.
  for (const k of ['a', 'b']) urls.downloaded(busy, testUrl(k).key);
  const next = await Promise.all(
    ['c', 'd', 'e'].map((k) => urls.take(busy, testUrl(k).key, { ...TEST_TAKE, maxPerHost: 2 })),
  );
  assert.deepEqual(
    next.map((t) => t.kind),
    ['fetch', 'fetch', 'wait'],
  );
  assert.equal(urls.batching.downloads.alone, 0);

  // Another worker sees a place free once this one records it: alone, when no take of its own comes.
  // c's row is held meanwhile, so the record cannot land before the other worker has looked.
  const other = new UrlStore(db);
  const holder = await db.pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query(`SELECT 1 FROM crawl_urls WHERE crawl_id = $1 AND url_key = $2 FOR UPDATE`, [
      busy,
      testUrl('c').key,
    ]);
    urls.downloaded(busy, testUrl('c').key);
    assert.equal((await other.take(busy, testUrl('e').key, { ...TEST_TAKE, maxPerHost: 2 })).kind, 'wait');
    await until('the lone download waits for the held row', async () => (await stores.lockWaiters()) > 0);
    assert.equal(urls.batching.downloads.alone, 1);
  } finally {
    await holder.query('COMMIT');
    holder.release();
  }
  await until('the lone download is recorded', async () => {
    const { rows } = await db.pool.query<{ done: boolean }>(
      'SELECT download_until IS NULL AS done FROM crawl_urls WHERE crawl_id = $1 AND url_key = $2',
      [busy, testUrl('c').key],
    );
    return rows[0]?.done === true;
  });
  assert.equal((await other.take(busy, testUrl('e').key, { ...TEST_TAKE, maxPerHost: 2 })).kind, 'fetch');

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

test('deliveries of one moment share a batch: consecutive seqs, each new link queued once, counters right', async () => {
  const id = await stores.crawlWith(['d1', 'd2', 'd3']);
  await Promise.all(['d1', 'd2', 'd3'].map((k) => urls.take(id, testUrl(k).key, TEST_TAKE)));
  const before = urls.batching.deliveries.batches;
  const [first, second, third] = await Promise.all([
    // d1 and d2 both link to "shared"; d1 also links to d2 (known) and to itself.
    urls.deliver(
      id,
      testUrl('d1').key,
      { depth: 1, document: Buffer.from('one') },
      [testUrl('shared'), testUrl('d2'), testUrl('only1')],
      testIndexFields(testUrl('d1').url),
    ),
    urls.deliver(
      id,
      testUrl('d2').key,
      { depth: 1, document: Buffer.from('two!') },
      [testUrl('shared'), testUrl('only2')],
      testIndexFields(testUrl('d2').url),
    ),
    // d3 was redirected to a URL of its own: known from now on, not counted, not queued.
    urls.deliver(
      id,
      testUrl('d3').key,
      { depth: 1, document: Buffer.from('three') },
      [],
      testIndexFields(testUrl('landed').url),
      testUrl('landed'),
    ),
  ]);
  assert.equal(urls.batching.deliveries.batches - before, 1, 'the three went as one batch');
  assert.deepEqual([first?.seq, second?.seq, third?.seq], [2, 3, 4]);
  const queued = [...(first?.queued ?? []), ...(second?.queued ?? [])].map((q) => q.key).sort();
  assert.deepEqual(queued, [testUrl('only1').key, testUrl('only2').key, testUrl('shared').key]);
  assert.equal(third?.queued.length, 0);
  assert.equal(await urls.known(id, testUrl('landed').key), true);
  const row = await crawls.crawl(id);
  assert.equal(row?.completed, 4);
  assert.equal(row?.discovered, 7, 'start + d1..d3 + shared, only1, only2');
  // Each page's own bytes under its own seq, oldest first.
  const stored = await pages.delivered(id, 0, 10, 1_000_000);
  assert.deepEqual(
    stored.map((p) => [p.seq, p.document.toString()]),
    [
      [1, 'start'],
      [2, 'one'],
      [3, 'two!'],
      [4, 'three'],
    ],
  );
  assert.equal(first?.mayHaveEnded, false);
});

test('a page delivered twice (two workers, one batch or two) is stored and counted once', async () => {
  const id = await stores.crawlWith(['dup']);
  await urls.take(id, testUrl('dup').key, TEST_TAKE);
  const page = { depth: 1, document: Buffer.from('dup') };
  const [a, b] = await Promise.all([
    urls.deliver(id, testUrl('dup').key, page, [], testIndexFields(testUrl('dup').url)),
    urls.deliver(id, testUrl('dup').key, page, [], testIndexFields(testUrl('dup').url)),
  ]);
  assert.equal([a, b].filter((d) => d !== undefined).length, 1);
  assert.equal(await urls.deliver(id, testUrl('dup').key, page, [], testIndexFields(testUrl('dup').url)), undefined);
  const row = await crawls.crawl(id);
  assert.equal(row?.completed, 2);
  assert.equal(row?.discovered - row!.completed, 0);
  assert.equal(await urls.deliver(id, testUrl('nope').key, page, [], testIndexFields(testUrl('nope').url)), undefined);
});

test('the last page of a crawl says it may have ended; a crawl at its limit says so too', async () => {
  const id = await stores.crawlWith(['end'], { limit: 2 });
  await urls.take(id, testUrl('end').key, TEST_TAKE);
  const last = await urls.deliver(
    id,
    testUrl('end').key,
    { depth: 1, document: Buffer.from('end') },
    [testUrl('more')],
    testIndexFields(testUrl('end').url),
  );
  assert.equal(last?.mayHaveEnded, true, 'completed reached the limit');
  assert.deepEqual(await crawls.endingOf(id).then((e) => e?.outcome), 'limit_reached');
});

test("a take batch does not wait for a URL row another transaction holds (the page's delivery frees its place itself)", async () => {
  const id = await stores.crawlWith(['held', 'next']);
  assert.equal((await urls.take(id, testUrl('held').key, TEST_TAKE)).kind, 'fetch');
  // The held page's delivery has its row meanwhile.
  const delivery = await db.pool.connect();
  await delivery.query('BEGIN');
  await delivery.query(`SELECT 1 FROM crawl_urls WHERE crawl_id = $1 AND url_key = $2 FOR UPDATE`, [
    id,
    testUrl('held').key,
  ]);
  try {
    urls.downloaded(id, testUrl('held').key);
    const take = urls.take(id, testUrl('next').key, TEST_TAKE);
    // Either the take answers, or Postgres shows it waiting for the held row: whichever comes first.
    let answered = false;
    const done = () => {
      answered = true;
    };
    take.then(done, done);
    const blocked = until(
      'the take to answer or wait',
      async () => answered || (await stores.lockWaiters()) > 0,
      60_000,
    ).then(() => 'blocked' as const);
    const first = await Promise.race([take, blocked]);
    assert.notEqual(first, 'blocked', 'the take waited for the delivery');
    assert.equal(typeof first === 'object' && first.kind, 'fetch');
  } finally {
    await delivery.query('ROLLBACK');
    delivery.release();
  }
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
