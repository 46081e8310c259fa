// The crawl's steps against a real Postgres with every migration applied:
// batched takes, downloads and deliveries decide exactly what single ones would.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type FreshDatabase, until } from '@wap/testkit';
import { freshDatabase } from '../test-support.js';
import { CrawlStore, type NewUrl } from './crawl-store.js';
import { CrawlDatabase } from './database.js';

let database: FreshDatabase;
let db: CrawlDatabase;
let store: CrawlStore;

before(async () => {
  database = await freshDatabase();
  db = new CrawlDatabase(database.url, 8);
  store = new CrawlStore(db);
});

after(async () => {
  await db.$disconnect();
  await database.drop();
});

/** Sessions of this test's database blocked on a lock another holds. */
async function lockWaiters(): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return rows[0]?.n ?? 0;
}

const HOST = 'site.test';
const url = (key: string): NewUrl => ({
  key: `http://${HOST}/${key}`,
  url: `http://${HOST}/${key}`,
  host: HOST,
  depth: 1,
});
const index = (u: string) => [u, 'title', '', 'some words of text', 'en'] as [string, string, string, string, string];
const SETTINGS = { allowed: true, maxPerHost: 16, leaseMs: 60_000 };

/** A running crawl with `pending` URLs queued under a host with `gapMs` between requests. */
async function crawlWith(pending: string[], opts: { limit?: number; gapMs?: number } = {}) {
  const id = randomUUID();
  const start = url('');
  await store.create({
    id,
    workspaceId: randomUUID(),
    requestId: randomUUID(),
    start,
    options: {},
    holdId: randomUUID(),
    limit: opts.limit ?? 1_000,
    deadlineAt: new Date(Date.now() + 3_600_000),
    sitemapsPending: false,
  });
  await store.ensureHost(id, HOST, null, opts.gapMs ?? 0);
  assert.equal((await store.take(id, start.key, SETTINGS)).kind, 'fetch');
  const delivered = await store.deliver(
    id,
    start.key,
    { depth: 0, document: Buffer.from('start') },
    pending.map(url),
    index(start.url),
  );
  assert.deepEqual(delivered?.queued.map((q) => q.key).sort(), pending.map((p) => url(p).key).sort());
  return id;
}

test('takes of one moment share a batch; with no politeness gap every one of them fetches', async () => {
  const keys = Array.from({ length: 12 }, (_, i) => `p${i}`);
  const id = await crawlWith(keys);
  const before = store.batching.takes.batches;
  // Twice: the second round runs right after the first committed (a take timed by its
  // transaction's start, or rounded up to the millisecond, answered "wait 1 ms" here).
  for (const round of [keys.slice(0, 6), keys.slice(6)]) {
    const takes = await Promise.all(round.map((k) => store.take(id, url(k).key, SETTINGS)));
    assert.deepEqual(
      takes.map((t) => t.kind),
      round.map(() => 'fetch'),
    );
  }
  assert.equal(store.batching.takes.batches - before, 2, 'each round went as one batch');
  const row = await store.crawl(id);
  assert.equal(row?.claimed, 13);
});

test('within one batch a host gets no more than maxPerHost, and its gap spaces the takes', async () => {
  const keys = ['a', 'b', 'c', 'd', 'e'];
  const busy = await crawlWith(keys);
  const takes = await Promise.all(keys.map((k) => store.take(busy, url(k).key, { ...SETTINGS, maxPerHost: 2 })));
  assert.deepEqual(
    takes.map((t) => t.kind),
    ['fetch', 'fetch', 'wait', 'wait', 'wait'],
  );
  // The freed places (downloads done) go with this worker's next takes and let them in.
  for (const k of ['a', 'b']) store.downloaded(busy, url(k).key);
  const next = await Promise.all(
    ['c', 'd', 'e'].map((k) => store.take(busy, url(k).key, { ...SETTINGS, maxPerHost: 2 })),
  );
  assert.deepEqual(
    next.map((t) => t.kind),
    ['fetch', 'fetch', 'wait'],
  );
  assert.equal(store.batching.downloads.alone, 0);

  // Another worker sees a place free once this one records it: alone, when no take of its own comes.
  // c's row is held meanwhile, so the record cannot land before the other worker has looked.
  const other = new CrawlStore(db);
  const holder = await db.pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query(`SELECT 1 FROM crawl_urls WHERE crawl_id = $1 AND url_key = $2 FOR UPDATE`, [
      busy,
      url('c').key,
    ]);
    store.downloaded(busy, url('c').key);
    assert.equal((await other.take(busy, url('e').key, { ...SETTINGS, maxPerHost: 2 })).kind, 'wait');
    await until('the lone download waits for the held row', async () => (await lockWaiters()) > 0);
    assert.equal(store.batching.downloads.alone, 1);
  } finally {
    await holder.query('COMMIT');
    holder.release();
  }
  await until('the lone download is recorded', async () => {
    const { rows } = await db.pool.query<{ done: boolean }>(
      'SELECT download_until IS NULL AS done FROM crawl_urls WHERE crawl_id = $1 AND url_key = $2',
      [busy, url('c').key],
    );
    return rows[0]?.done === true;
  });
  assert.equal((await other.take(busy, url('e').key, { ...SETTINGS, maxPerHost: 2 })).kind, 'fetch');

  // A gap far longer than the test: the wait answered is the gap less the moment since the start page's take.
  const polite = await crawlWith(['x', 'y'], { gapMs: 600_000 });
  const spaced = await Promise.all(['x', 'y'].map((k) => store.take(polite, url(k).key, SETTINGS)));
  assert.equal(spaced[0]?.kind, 'wait', 'the start page was taken a moment ago');
  assert.ok(spaced[0]?.kind === 'wait' && spaced[0].ms > 540_000 && spaced[0].ms <= 600_000);
  assert.equal(spaced[1]?.kind, 'wait');
});

test('the limit holds within a batch: claims stop at the limit and the rest wait for pages in flight', async () => {
  const keys = ['l1', 'l2', 'l3', 'l4'];
  const id = await crawlWith(keys, { limit: 3 });
  const takes = await Promise.all(keys.map((k) => store.take(id, url(k).key, SETTINGS)));
  assert.deepEqual(
    takes.map((t) => t.kind),
    ['fetch', 'fetch', 'wait', 'wait'],
  );
  assert.equal((await store.crawl(id))?.claimed, 3);
});

test('deliveries of one moment share a batch: consecutive seqs, each new link queued once, counters right', async () => {
  const id = await crawlWith(['d1', 'd2', 'd3']);
  await Promise.all(['d1', 'd2', 'd3'].map((k) => store.take(id, url(k).key, SETTINGS)));
  const before = store.batching.deliveries.batches;
  const [first, second, third] = await Promise.all([
    // d1 and d2 both link to "shared"; d1 also links to d2 (known) and to itself.
    store.deliver(
      id,
      url('d1').key,
      { depth: 1, document: Buffer.from('one') },
      [url('shared'), url('d2'), url('only1')],
      index(url('d1').url),
    ),
    store.deliver(
      id,
      url('d2').key,
      { depth: 1, document: Buffer.from('two!') },
      [url('shared'), url('only2')],
      index(url('d2').url),
    ),
    // d3 was redirected to a URL of its own: known from now on, not counted, not queued.
    store.deliver(
      id,
      url('d3').key,
      { depth: 1, document: Buffer.from('three') },
      [],
      index(url('landed').url),
      url('landed'),
    ),
  ]);
  assert.equal(store.batching.deliveries.batches - before, 1, 'the three went as one batch');
  assert.deepEqual([first?.seq, second?.seq, third?.seq], [2, 3, 4]);
  const queued = [...(first?.queued ?? []), ...(second?.queued ?? [])].map((q) => q.key).sort();
  assert.deepEqual(queued, [url('only1').key, url('only2').key, url('shared').key]);
  assert.equal(third?.queued.length, 0);
  assert.equal(await store.known(id, url('landed').key), true);
  const row = await store.crawl(id);
  assert.equal(row?.completed, 4);
  assert.equal(row?.discovered, 7, 'start + d1..d3 + shared, only1, only2');
  // Each page's own bytes under its own seq, oldest first.
  const pages = await store.pages(id, 0, 10, 1_000_000);
  assert.deepEqual(
    pages.map((p) => [p.seq, p.document.toString()]),
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
  const id = await crawlWith(['dup']);
  await store.take(id, url('dup').key, SETTINGS);
  const page = { depth: 1, document: Buffer.from('dup') };
  const [a, b] = await Promise.all([
    store.deliver(id, url('dup').key, page, [], index(url('dup').url)),
    store.deliver(id, url('dup').key, page, [], index(url('dup').url)),
  ]);
  assert.equal([a, b].filter((d) => d !== undefined).length, 1);
  assert.equal(await store.deliver(id, url('dup').key, page, [], index(url('dup').url)), undefined);
  const row = await store.crawl(id);
  assert.equal(row?.completed, 2);
  assert.equal(row?.discovered - row!.completed, 0);
  assert.equal(await store.deliver(id, url('nope').key, page, [], index(url('nope').url)), undefined);
});

test('the last page of a crawl says it may have ended; a crawl at its limit says so too', async () => {
  const id = await crawlWith(['end'], { limit: 2 });
  await store.take(id, url('end').key, SETTINGS);
  const last = await store.deliver(
    id,
    url('end').key,
    { depth: 1, document: Buffer.from('end') },
    [url('more')],
    index(url('end').url),
  );
  assert.equal(last?.mayHaveEnded, true, 'completed reached the limit');
  assert.deepEqual(await store.endingOf(id).then((e) => e?.outcome), 'limit_reached');
});

test('a closed crawl is final: no page in flight is delivered, nothing is added, and it keeps its first outcome', async () => {
  const id = await crawlWith(['c1', 'c2', 'c3']);
  await store.take(id, url('c1').key, SETTINGS);
  await store.take(id, url('c2').key, SETTINGS);
  const page = (k: string) => ({ depth: 1, document: Buffer.from(k) });
  assert.ok(await store.deliver(id, url('c1').key, page('c1'), [], index(url('c1').url)));
  assert.equal(await store.cancel((await store.crawl(id))!.workspaceId, id), true);
  assert.deepEqual(await store.endingOf(id), undefined, 'c2 is still being fetched');

  const closed = await store.close(id, 'cancelled');
  assert.deepEqual(closed, { completed: 2, outcome: 'cancelled', closedNow: true });
  // c2's worker comes back with its page: too late, and neither stored nor counted.
  assert.equal(await store.deliver(id, url('c2').key, page('c2'), [url('c9')], index(url('c2').url)), undefined);
  assert.deepEqual(await store.addUrls(id, url('').key, [url('sitemapped')]), []);
  const row = await store.crawl(id);
  assert.equal(row?.completed, 2);
  assert.equal(row?.discovered, 4, 'start + c1..c3');
  assert.equal(row?.skipped, 2, 'c2 (in flight) and c3 (pending)');
  assert.equal(row?.status, 'cancelled', 'not settled until it is billed');

  // Closing again (another worker, the sweeper) answers the same; so does the ending.
  assert.deepEqual(await store.close(id, 'expired'), { completed: 2, outcome: 'cancelled', closedNow: false });
  assert.equal((await store.endingOf(id))?.outcome, 'cancelled');
  assert.equal(await store.settle(id), true);
  assert.equal(await store.settle(id), false);
  assert.equal((await store.crawl(id))?.status, 'settled');
  assert.equal(await store.close(id, 'cancelled'), undefined);
  assert.equal(await store.endingOf(id), undefined);
});

test('a crawl is settled only once closed', async () => {
  const id = await crawlWith(['open']);
  assert.equal(await store.settle(id), false);
  assert.equal((await store.crawl(id))?.status, 'running');
});

test("a take batch does not wait for a URL row another transaction holds (the page's delivery frees its place itself)", async () => {
  const id = await crawlWith(['held', 'next']);
  assert.equal((await store.take(id, url('held').key, SETTINGS)).kind, 'fetch');
  // The held page's delivery has its row meanwhile.
  const delivery = await db.pool.connect();
  await delivery.query('BEGIN');
  await delivery.query(`SELECT 1 FROM crawl_urls WHERE crawl_id = $1 AND url_key = $2 FOR UPDATE`, [
    id,
    url('held').key,
  ]);
  try {
    store.downloaded(id, url('held').key);
    const take = store.take(id, url('next').key, SETTINGS);
    // Either the take answers, or Postgres shows it waiting for the held row: whichever comes first.
    let answered = false;
    const done = () => {
      answered = true;
    };
    take.then(done, done);
    const blocked = until('the take to answer or wait', async () => answered || (await lockWaiters()) > 0, 60_000).then(
      () => 'blocked' as const,
    );
    const first = await Promise.race([take, blocked]);
    assert.notEqual(first, 'blocked', 'the take waited for the delivery');
    assert.equal(typeof first === 'object' && first.kind, 'fetch');
  } finally {
    await delivery.query('ROLLBACK');
    delivery.release();
  }
});

test('closing locks URL rows before the crawl row, as takes and deliveries do: no deadlock with a take in progress', async () => {
  const id = await crawlWith(['q1', 'q2'], { limit: 3 });
  // A take batch holds a pending URL row and is about to touch the crawl row (a skip counts there).
  const take = await db.pool.connect();
  try {
    await take.query('BEGIN');
    await take.query(`SELECT 1 FROM crawl_urls WHERE crawl_id = $1 AND url_key = $2 FOR UPDATE`, [id, url('q1').key]);
    const closing = store.close(id, 'expired');
    // The close is waiting for q1's row, holding nothing the take needs.
    await until('the close waits for the held row', async () => (await lockWaiters()) > 0);
    await take.query(`UPDATE crawls SET skipped = skipped WHERE id = $1`, [id]);
    await take.query('COMMIT');
    assert.equal((await closing)?.closedNow, true);
  } finally {
    take.release();
  }
  assert.equal((await store.crawl(id))?.skipped, 2);
});

test('a closed crawl takes nothing, even a URL that reached it after it closed', async () => {
  const id = await crawlWith(['late0']);
  await store.close(id, 'expired');
  // As a sitemap insert racing the close would leave it.
  await db.pool.query(`INSERT INTO crawl_urls (crawl_id, url_key, url, host, depth) VALUES ($1, $2, $2, $3, 1)`, [
    id,
    url('late').key,
    HOST,
  ]);
  assert.equal((await store.take(id, url('late').key, SETTINGS)).kind, 'stopped');
  assert.equal((await store.crawl(id))?.completed, 1);
});

test('a URL whose tries keep failing for a reason not its own fails on its last try, recorded and given back', async () => {
  const id = await crawlWith(['dead', 'alive']);
  const dead = url('dead').key;
  const failure = { code: 'internal', details: { attempts: 3 }, maxAttempts: 3 };
  for (const expected of ['released', 'released', 'failed'] as const) {
    assert.equal((await store.take(id, dead, SETTINGS)).kind, 'fetch');
    assert.equal(await store.release(id, dead, failure), expected);
  }
  assert.deepEqual(await store.take(id, dead, SETTINGS), { kind: 'finished', state: 'failed' });
  assert.equal(await store.release(id, dead, failure), 'not-mine', 'no longer fetching: nothing to give back');
  assert.deepEqual(await store.failures(id, 10), [
    { url: url('dead').url, code: 'internal', details: { attempts: 3 } },
  ]);
  const row = await store.crawl(id);
  assert.deepEqual(
    [row?.failed, row?.claimed],
    [1, 1],
    'failed counted, its claim given back (the start page keeps its)',
  );
  // A release without a failure (a worker stopping) does not count a try.
  const alive = url('alive').key;
  for (let i = 0; i < 5; i++) {
    assert.equal((await store.take(id, alive, SETTINGS)).kind, 'fetch');
    assert.equal(await store.release(id, alive), 'released');
  }
  assert.equal((await store.take(id, alive, SETTINGS)).kind, 'fetch');
});

test('a crawl without progress for the stall time ends expired, and the sweeper keeps seeing it after a requeue', async () => {
  const id = await crawlWith(['stuck']);
  assert.equal(await store.endingOf(id, { stallMs: 60_000 }), undefined, 'progress a moment ago');
  await db.pool.query(`UPDATE crawls SET progress_at = now() - interval '2 minutes' WHERE id = $1`, [id]);
  assert.equal(await store.endingOf(id), undefined, 'without a stall time only the deadline ends it');
  assert.ok((await store.stale(60_000, 1_000, 90_000)).includes(id));
  // Queueing its URLs again is not progress: the crawl still stalls.
  assert.deepEqual(
    (await store.requeue(id)).map((u) => u.key),
    [url('stuck').key],
  );
  assert.ok((await store.stale(60_000, 1_000, 90_000)).includes(id), 'still past the stall time');
  assert.ok(!(await store.stale(60_000, 1_000, 0)).includes(id), 'requeued a moment ago: not idle');
  assert.equal((await store.endingOf(id, { stallMs: 90_000 }))?.outcome, 'expired');
});
