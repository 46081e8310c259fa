// The crawl sweep against a real Postgres, a real ledger served in-process and
// real NATS: a stalled crawl ends expired with its delivered pages billed and
// the rest of its hold released; settled crawls past retention are deleted.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { freshDatabase as freshLedgerDatabase, serveLedger } from '@wap/billing-ledger/test-support';
import { ensureStreams, type NatsLink, Publisher } from '@wap/events';
import { createFetchAgent } from '@wap/fetch';
import { AllowList } from '@wap/netguard';
import { ledger } from '@wap/proto';
import { type FreshDatabase, quietLog, testNats, until } from '@wap/testkit';
import { CrawlStore } from '../store/crawls.js';
import { CrawlDatabase } from '../store/database.js';
import { HostStore } from '../store/hosts.js';
import { UrlStore } from '../store/urls.js';
import { freshDatabase } from '../test-support.js';
import { crawlSweeper } from './crawl-sweep.js';
import { CrawlWorker } from './crawl-worker.js';
import { Frontier, frontierStreams } from './frontier.js';

const log = quietLog();
const HOST = 'site.test';
const SETTINGS = { intervalMs: 60_000, idleMs: 60_000, stallMs: 90_000, retentionMs: 3_600_000 };

let crawlDb: FreshDatabase;
let db: CrawlDatabase;
let ledgerDb: { url: string; drop(): Promise<void> };
let served: Awaited<ReturnType<typeof serveLedger>>;
let link: NatsLink;
let crawls: CrawlStore;
let urls: UrlStore;
let hosts: HostStore;
let worker: CrawlWorker;
let frontier: Frontier;
const agent = createFetchAgent({ allow: AllowList.parse('') });

before(async () => {
  crawlDb = await freshDatabase();
  db = new CrawlDatabase(crawlDb.url, 4);
  crawls = new CrawlStore(db);
  urls = new UrlStore(db);
  hosts = new HostStore(db);
  ledgerDb = await freshLedgerDatabase();
  served = await serveLedger(ledgerDb.url, () => new Date());
  link = await testNats('crawl-sweep-test', log);
  const namespace = `sweep_${randomUUID().slice(0, 8)}_`;
  const { streams, consumers } = frontierStreams({ NATS_NAMESPACE: namespace, CRAWL_ACK_WAIT: 30_000 });
  await ensureStreams(link.nc, streams, consumers);
  frontier = new Frontier(new Publisher(link.nc), namespace);
  worker = new CrawlWorker({
    agent,
    allow: AllowList.parse(''),
    crawls,
    urls,
    hosts,
    ledger: served.client,
    frontier,
    log,
    ackWaitMs: 30_000,
    stallMs: SETTINGS.stallMs,
  });
});

after(async () => {
  worker.stop();
  await agent.close();
  await link.drain();
  await served.close();
  await db.$disconnect();
  await Promise.all([crawlDb.drop(), ledgerDb.drop()]);
});

/** A running crawl of `limit` pages, held on the ledger, its start page delivered and `pending` URLs queued. */
async function runningCrawl(workspaceId: string, pending: string[], limit: number) {
  await served.client.ensureAccount({ workspaceId, plan: ledger.Plan.PRO });
  const id = randomUUID();
  const hold = await served.client.authorize({
    workspaceId,
    idempotencyKey: `crawl:${id}:hold`,
    capability: 'crawl',
    millicredits: BigInt(limit) * 1_000n,
    ttlSeconds: 3_600,
    reference: id,
  });
  const start = { key: `http://${HOST}/`, url: `http://${HOST}/`, host: HOST, depth: 0 };
  await crawls.create({
    id,
    workspaceId,
    requestId: id,
    start,
    options: {},
    holdId: hold.holdId,
    limit,
    deadlineAt: new Date(Date.now() + 3_600_000),
    sitemapsPending: false,
  });
  await hosts.ensureHost(id, HOST, null, 0);
  assert.equal((await urls.take(id, start.key, { allowed: true, maxPerHost: 4, leaseMs: 60_000 })).kind, 'fetch');
  const links = pending.map((p) => ({ key: `http://${HOST}/${p}`, url: `http://${HOST}/${p}`, host: HOST, depth: 1 }));
  await urls.deliver(id, start.key, { depth: 0, document: Buffer.from('start') }, links, [
    start.url,
    'title',
    '',
    'words',
    'en',
  ]);
  return { id, holdId: hold.holdId };
}

test('a round ends a stalled crawl as expired: its delivered page billed once, the rest of the hold released', async () => {
  const workspaceId = randomUUID();
  const { id } = await runningCrawl(workspaceId, ['stuck'], 10);
  const before = await served.client.credits({ workspaceId });
  await db.pool.query(`UPDATE crawls SET progress_at = now() - interval '2 minutes' WHERE id = $1`, [id]);

  const round = await crawlSweeper({ crawls, urls, worker, frontier, log }, SETTINGS).runOnce();
  assert.ok(round.looked >= 1, 'the stalled crawl was looked at');
  const row = await crawls.crawl(id);
  assert.equal(row?.status, 'settled');
  assert.equal(row?.outcome, 'expired');

  const afterRound = await served.client.credits({ workspaceId });
  // The hold of 10 pages is gone from the reserve, and exactly the one delivered page is spent.
  assert.equal(afterRound.heldMillicredits, 0n);
  const spent = (c: typeof before) => c.spentMillicredits + c.allowanceSpentMillicredits;
  assert.equal(before.heldMillicredits, 10_000n);
  assert.equal(spent(afterRound) - spent(before), 1_000n);
  // A second round changes nothing: the crawl is settled, the page billed once.
  await crawlSweeper({ crawls, urls, worker, frontier, log }, SETTINGS).runOnce();
  assert.deepEqual(await served.client.credits({ workspaceId }), afterRound);
});

test('a round deletes settled crawls past their retention and keeps the recent ones', async () => {
  const old = await runningCrawl(randomUUID(), [], 1);
  const recent = await runningCrawl(randomUUID(), [], 1);
  for (const { id } of [old, recent]) {
    await worker.finishIfDone(id);
    assert.equal((await crawls.crawl(id))?.status, 'settled');
  }
  await db.pool.query(`UPDATE crawls SET finished_at = now() - interval '2 hours' WHERE id = $1`, [old.id]);
  const round = await crawlSweeper({ crawls, urls, worker, frontier, log }, SETTINGS).runOnce();
  assert.ok(round.purged >= 1);
  assert.equal(await crawls.crawl(old.id), undefined);
  assert.equal((await crawls.crawl(recent.id))?.status, 'settled');
});

test('started, the sweep runs its rounds on its interval and stops', async () => {
  const job = crawlSweeper({ crawls, urls, worker, frontier, log }, { ...SETTINGS, intervalMs: 50 });
  job.start();
  const settled = await runningCrawl(randomUUID(), [], 1);
  await worker.finishIfDone(settled.id);
  await db.pool.query(`UPDATE crawls SET finished_at = now() - interval '2 hours' WHERE id = $1`, [settled.id]);
  await until(
    'the started sweep purged the crawl past retention',
    async () => !(await crawls.crawl(settled.id)),
    10_000,
  );
  const stalled = await runningCrawl(randomUUID(), ['stuck'], 5);
  await db.pool.query(`UPDATE crawls SET progress_at = now() - interval '2 minutes' WHERE id = $1`, [stalled.id]);
  await until(
    'a later round expired the stalled crawl',
    async () => (await crawls.crawl(stalled.id))?.outcome === 'expired',
    10_000,
  );
  await job.stop();
});
