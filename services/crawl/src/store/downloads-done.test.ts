// Downloads done against a real Postgres with every migration applied: they
// free their hosts' places with this worker's next takes, or alone when no take
// comes, and a take batch never waits for a row another transaction holds.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { until } from '@wap/testkit';
import { type FreshStores, freshStores, TEST_TAKE, testUrl } from '../test-support.js';
import type { CrawlDatabase } from './database.js';
import { DownloadsDone } from './downloads-done.js';
import { UrlStore } from './urls.js';

let stores: FreshStores;
let db: CrawlDatabase;
let urls: UrlStore;

before(async () => {
  stores = await freshStores();
  ({ db, urls } = stores);
});

after(() => stores.drop());

test('downloads free their places with the next takes, or alone when no take comes', async () => {
  const keys = ['a', 'b', 'c', 'd', 'e'];
  const busy = await stores.crawlWith(keys);
  // a and b take the host's two places; the others wait (urls.test.ts).
  await Promise.all(keys.map((k) => urls.take(busy, testUrl(k).key, { ...TEST_TAKE, maxPerHost: 2 })));

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
});

test('downloads a failed take batch carried wait for the next; a URL downloaded twice goes once', async () => {
  const downloads = new DownloadsDone(db);
  for (const key of ['a', 'a', 'b']) downloads.add('crawl', key);
  await assert.rejects(
    downloads.carry(async () => {
      throw new Error('database down');
    }),
  );
  const carried = await downloads.carry(async (all) => all.map((d) => d.urlKey));
  assert.deepEqual(carried, ['a', 'b']);
  assert.deepEqual(downloads.sent, { withTakes: 2, alone: 0 });
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
