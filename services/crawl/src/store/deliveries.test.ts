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

test('a page delivered queues its `page` event in the same transaction, once, when the webhook wants pages', async () => {
  const wants = await stores.crawlWith(['p1', 'p2']);
  const others = await stores.crawlWith(['q1']);
  const hook = (events: string[]) => JSON.stringify({ metadata: { run: 7 }, events, sealed: 'unused here' });
  await stores.db.pool.query('UPDATE crawls SET webhook = $2 WHERE id = $1', [wants, hook(['page'])]);
  await stores.db.pool.query('UPDATE crawls SET webhook = $2 WHERE id = $1', [others, hook(['completed'])]);
  assert.deepEqual([(await crawls.crawl(wants))?.pageEvents, (await crawls.crawl(others))?.pageEvents], [true, false]);
  const deliver = (id: string, k: string) =>
    urls.deliver(
      id,
      testUrl(k).key,
      { depth: 1, document: Buffer.from(k) },
      [],
      testIndexFields(testUrl(k).url),
      undefined,
      JSON.stringify({ markdown: `# ${k}`, metadata: { url: testUrl(k).url, title: null } }),
    );
  await Promise.all([
    ...['p1', 'p2'].map((k) => urls.take(wants, testUrl(k).key, TEST_TAKE)),
    urls.take(others, testUrl('q1').key, TEST_TAKE),
  ]);
  // p1 twice (two workers): delivered once, so one event; q1's webhook wants no page.
  await Promise.all([deliver(wants, 'p1'), deliver(wants, 'p1'), deliver(wants, 'p2'), deliver(others, 'q1')]);
  const { rows } = await stores.db.pool.query<{ id: string; event: string; body: string }>(
    `SELECT id, event, body FROM crawl_webhook_deliveries WHERE crawl_id = ANY($1::uuid[]) AND event = 'page'`,
    [[wants, others]],
  );
  const bodies = rows.map((r) => JSON.parse(r.body) as { data: { markdown: string; metadata: unknown }[] });
  assert.deepEqual(bodies.map((b) => b.data[0]?.markdown).sort(), ['# p1', '# p2']);
  assert.deepEqual(bodies[0], {
    success: true,
    type: 'crawl.page',
    id: wants,
    webhookId: rows[0]?.id,
    data: [bodies[0]?.data[0]],
    metadata: { run: 7 },
  });
  assert.equal(
    (bodies[0]?.data[0]?.metadata as { title: unknown } | undefined)?.title,
    null,
    'the page’s nulls are kept',
  );
});
