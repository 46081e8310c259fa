// Deliveries against a real Postgres with every migration applied: a batch of
// them decides exactly what single ones would, a page is stored once, and the
// last page says its crawl may have ended.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type FreshStores, freshStores, TEST_TAKE, testIndexFields, testUrl } from '../test-support.js';
import type { CrawlStore } from './crawls.js';
import type { PageStore } from './pages.js';
import type { UrlStore } from './urls.js';

let stores: FreshStores;
let crawls: CrawlStore;
let urls: UrlStore;
let pages: PageStore;

before(async () => {
  stores = await freshStores();
  ({ crawls, urls, pages } = stores);
});

after(() => stores.drop());

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
