// The page cache sweep against a real Postgres: a round deletes the copies past
// their keep and leaves the rest; started, it sweeps on its interval and stops.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { extract } from '@wap/extract';
import { type FreshDatabase, quietLog, until } from '@wap/testkit';
import { CrawlDatabase } from '../store/database.js';
import { PageCache } from '../store/page-cache.js';
import { freshDatabase } from '../test-support.js';
import { CACHE_KEEP_MS, cacheSweeper } from './cache-sweep.js';

const log = quietLog();
let database: FreshDatabase;
let db: CrawlDatabase;
let cache: PageCache;

before(async () => {
  database = await freshDatabase();
  db = new CrawlDatabase(database.url, 4);
  cache = new PageCache(db);
});

after(async () => {
  await db.$disconnect();
  await database.drop();
});

/** A cached page of a new workspace, fetched `ageMs` ago. */
async function cachedPage(ageMs: number): Promise<string> {
  const workspaceId = randomUUID();
  const url = `https://${workspaceId}.test/`;
  const html = '<html><head><title>Kept</title></head><body><p>words</p></body></html>';
  await cache.store({
    workspaceId,
    cacheKey: 'k',
    url,
    page: { finalUrl: url, status: 200, contentType: 'text/html', engine: 'fetch', html },
    extracted: extract(html, url, { formats: ['text'] }),
  });
  await db.pool.query(
    `UPDATE cached_pages SET fetched_at = now() - make_interval(secs => $2 / 1000.0) WHERE workspace_id = $1`,
    [workspaceId, ageMs],
  );
  return workspaceId;
}

const isCached = async (workspaceId: string) =>
  (await cache.fresh(workspaceId, 'k', Number.MAX_SAFE_INTEGER)) !== undefined;

test('a round deletes cached pages past the keep and keeps the younger ones', async () => {
  const old = await cachedPage(CACHE_KEEP_MS + 60_000);
  const young = await cachedPage(CACHE_KEEP_MS - 60_000);
  const deleted = await cacheSweeper(cache, log, { intervalMs: 3_600_000 }).runOnce();
  assert.ok(deleted >= 1);
  assert.equal(await isCached(old), false);
  assert.equal(await isCached(young), true);
});

test('started, the sweep runs on its interval, again and again, and stops', async () => {
  const job = cacheSweeper(cache, log, { intervalMs: 50 });
  job.start();
  const first = await cachedPage(CACHE_KEEP_MS + 60_000);
  await until('the started job swept the old page', async () => !(await isCached(first)), 10_000);
  // A second old page is swept too: the job keeps going after its first pass.
  const second = await cachedPage(CACHE_KEEP_MS + 60_000);
  await until('the job swept again', async () => !(await isCached(second)), 10_000);
  // Resolves once the pass in flight, if any, has ended (libs/service's job tests show none follows).
  await job.stop();
});
