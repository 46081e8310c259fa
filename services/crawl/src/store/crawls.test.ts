// How a crawl ends, against a real Postgres with every migration applied: a
// closed crawl is final and keeps its first outcome, closing locks in the
// order every step does, settling needs a close, and a stalled crawl expires.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { until } from '@wap/testkit';
import { type FreshStores, freshStores, TEST_TAKE, testIndexFields, testUrl } from '../test-support.js';
import { type CrawlStore, holdsOf } from './crawls.js';
import type { CrawlDatabase } from './database.js';
import type { UrlStore } from './urls.js';
import { keepWebhook, openWebhook } from './webhooks.js';

let stores: FreshStores;
let db: CrawlDatabase;
let crawls: CrawlStore;
let urls: UrlStore;

before(async () => {
  stores = await freshStores();
  ({ db, crawls, urls } = stores);
});

after(() => stores.drop());

test('a closed crawl is final: no page in flight is delivered, nothing is added, and it keeps its first outcome', async () => {
  const id = await stores.crawlWith(['c1', 'c2', 'c3']);
  await urls.take(id, testUrl('c1').key, TEST_TAKE);
  await urls.take(id, testUrl('c2').key, TEST_TAKE);
  const page = (k: string) => ({ depth: 1, document: Buffer.from(k) });
  assert.ok(await urls.deliver(id, testUrl('c1').key, page('c1'), [], testIndexFields(testUrl('c1').url)));
  assert.equal(await crawls.cancel((await crawls.crawl(id))!.workspaceId, id), true);
  assert.deepEqual(await crawls.endingOf(id), undefined, 'c2 is still being fetched');

  const closed = await crawls.close(id, 'cancelled');
  assert.deepEqual(closed, { completed: 2, outcome: 'cancelled', closedNow: true });
  // c2's worker comes back with its page: too late, and neither stored nor counted.
  assert.equal(
    await urls.deliver(id, testUrl('c2').key, page('c2'), [testUrl('c9')], testIndexFields(testUrl('c2').url)),
    undefined,
  );
  assert.deepEqual(await urls.addUrls(id, testUrl('').key, [testUrl('sitemapped')]), []);
  const row = await crawls.crawl(id);
  assert.equal(row?.completed, 2);
  assert.equal(row?.discovered, 4, 'start + c1..c3');
  assert.equal(row?.skipped, 2, 'c2 (in flight) and c3 (pending)');
  assert.equal(row?.status, 'cancelled', 'not settled until it is billed');

  // Closing again (another worker, the sweeper) answers the same; so does the ending.
  assert.deepEqual(await crawls.close(id, 'expired'), { completed: 2, outcome: 'cancelled', closedNow: false });
  assert.equal((await crawls.endingOf(id))?.outcome, 'cancelled');
  assert.equal(await crawls.settle(id), true);
  assert.equal(await crawls.settle(id), false);
  assert.equal((await crawls.crawl(id))?.status, 'settled');
  assert.equal(await crawls.close(id, 'cancelled'), undefined);
  assert.equal(await crawls.endingOf(id), undefined);
});

test('a crawl is settled only once closed', async () => {
  const id = await stores.crawlWith(['open']);
  assert.equal(await crawls.settle(id), false);
  assert.equal((await crawls.crawl(id))?.status, 'running');
});

test('closing locks URL rows before the crawl row, as takes and deliveries do: no deadlock with a take in progress', async () => {
  const id = await stores.crawlWith(['q1', 'q2'], { limit: 3 });
  // A take batch holds a pending URL row and is about to touch the crawl row (a skip counts there).
  const take = await db.pool.connect();
  try {
    await take.query('BEGIN');
    await take.query(`SELECT 1 FROM crawl_urls WHERE crawl_id = $1 AND url_key = $2 FOR UPDATE`, [
      id,
      testUrl('q1').key,
    ]);
    const closing = crawls.close(id, 'expired');
    // The close is waiting for q1's row, holding nothing the take needs.
    await until('the close waits for the held row', async () => (await stores.lockWaiters()) > 0);
    await take.query(`UPDATE crawls SET skipped = skipped WHERE id = $1`, [id]);
    await take.query('COMMIT');
    assert.equal((await closing)?.closedNow, true);
  } finally {
    take.release();
  }
  assert.equal((await crawls.crawl(id))?.skipped, 2);
});

test('a crawl without progress for the stall time ends expired, and the sweeper keeps seeing it after a requeue', async () => {
  const id = await stores.crawlWith(['stuck']);
  assert.equal(await crawls.endingOf(id, { stallMs: 60_000 }), undefined, 'progress a moment ago');
  await db.pool.query(`UPDATE crawls SET progress_at = now() - interval '2 minutes' WHERE id = $1`, [id]);
  assert.equal(await crawls.endingOf(id), undefined, 'without a stall time only the deadline ends it');
  assert.ok((await crawls.stale(60_000, 1_000, 90_000)).includes(id));
  // Queueing its URLs again is not progress: the crawl still stalls.
  assert.deepEqual(
    (await urls.requeue(id)).map((u) => u.key),
    [testUrl('stuck').key],
  );
  assert.ok((await crawls.stale(60_000, 1_000, 90_000)).includes(id), 'still past the stall time');
  assert.ok(!(await crawls.stale(60_000, 1_000, 0)).includes(id), 'requeued a moment ago: not idle');
  assert.equal((await crawls.endingOf(id, { stallMs: 90_000 }))?.outcome, 'expired');
});

test("a crawl's webhook is kept sealed: its URL, headers and secret are not in the row, and a retried start opens the first", async () => {
  const key = 'k'.repeat(40);
  const hook = {
    url: 'https://hooks.example.test/t0ken-in-path',
    headers: { authorization: 'Bearer receiver-token' },
    metadata: { team: 'ops' },
    events: [],
    secret: 'whsec_c2VjcmV0LXNpZ25pbmcta2V5',
  };
  const first = {
    id: randomUUID(),
    workspaceId: randomUUID(),
    requestId: randomUUID(),
    start: testUrl('webhooked'),
    options: {},
    holdId: randomUUID(),
    limit: 10,
    deadlineAt: new Date(Date.now() + 3_600_000),
    sitemapsPending: false,
    webhook: keepWebhook(key, '', hook),
  };
  first.webhook = keepWebhook(key, first.id, hook);
  const made = await crawls.create(first);
  const { rows } = await db.pool.query<{ row: string }>('SELECT webhook::text AS row FROM crawls WHERE id = $1', [
    first.id,
  ]);
  for (const secret of ['t0ken-in-path', 'receiver-token', hook.secret])
    assert.ok(!rows[0]?.row.includes(secret), `${secret} is not in the row`);
  assert.deepEqual(made.webhook && openWebhook(key, made.crawl.id, made.webhook), hook);
  // The same start again, with another id: the first row's webhook, opened for that row.
  const again = await crawls.create({ ...first, id: randomUUID(), webhook: keepWebhook(key, randomUUID(), hook) });
  assert.equal(again.created, false);
  assert.equal(again.webhook && openWebhook(key, again.crawl.id, again.webhook).secret, hook.secret);
  // Sealed for one crawl, it opens for no other, nor under another key.
  assert.throws(() => made.webhook && openWebhook(key, randomUUID(), made.webhook));
  assert.throws(() => made.webhook && openWebhook('x'.repeat(40), made.crawl.id, made.webhook));
});

test('pages appended to a running batch: new ones only, held by their own hold, once per request; never to an ended one', async () => {
  const id = randomUUID();
  const workspaceId = randomUUID();
  const [b1, b2, b3, b4] = ['b1', 'b2', 'b3', 'b4'].map(testUrl) as [
    ReturnType<typeof testUrl>,
    ReturnType<typeof testUrl>,
    ReturnType<typeof testUrl>,
    ReturnType<typeof testUrl>,
  ];
  await crawls.create({
    id,
    workspaceId,
    requestId: randomUUID(),
    start: b1,
    more: [b2],
    options: { batch: true },
    holdId: 'hold-0',
    limit: 2,
    deadlineAt: new Date(Date.now() + 3_600_000),
    sitemapsPending: false,
  });
  const urlCount = async () =>
    (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM crawl_urls WHERE crawl_id = $1', [id])).rows[0]
      ?.n;
  const append = (requestId: string, holdId: string, ws = workspaceId) =>
    crawls.append({ workspaceId: ws, crawlId: id, requestId, holdId, urls: [b2, b3, b4] });

  const first = await append('r1', 'hold-1');
  assert.equal(first.state, 'appended');
  assert.deepEqual(first.state === 'appended' && first.fresh.map((u) => u.key), [b3.key, b4.key], 'b2 was there');
  const row = await crawls.crawl(id);
  assert.deepEqual([row?.limit, row?.discovered], [4, 4]);
  assert.deepEqual(row && holdsOf(row), [
    { holdId: 'hold-0', from: 0, pages: 2 },
    { holdId: 'hold-1', from: 2, pages: 2 },
  ]);
  // The same request again (a retried RPC) adds nothing; another workspace's append finds no batch.
  assert.equal((await append('r1', 'hold-1')).state, 'retried');
  assert.equal((await append('r2', 'hold-2', randomUUID())).state, 'missing');
  assert.deepEqual([(await crawls.crawl(id))?.limit, await urlCount()], [4, 4]);

  // A batch with pages left is not closed as completed (its ending was read before an append).
  assert.equal(await crawls.close(id, 'completed'), undefined);
  assert.equal((await crawls.crawl(id))?.outcome, null);
  // Cancelled, it takes no page: the append's URLs are rolled back with it.
  await crawls.cancel(workspaceId, id);
  const late = await crawls.append({
    workspaceId,
    crawlId: id,
    requestId: 'r3',
    holdId: 'hold-3',
    urls: [testUrl('b5')],
  });
  assert.equal(late.state, 'ended');
  assert.equal(await urlCount(), 4);
});
