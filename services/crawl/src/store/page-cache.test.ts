// The page cache and the search index writes of scrapes, against a real Postgres.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { extract } from '@wap/extract';
import type { FreshDatabase } from '@wap/testkit';
import { freshDatabase } from '../test-support.js';
import { CrawlDatabase } from './database.js';
import { type CachedPage, PageCache } from './page-cache.js';
import { SearchIndex } from './search-index.js';

let database: FreshDatabase;
let db: CrawlDatabase;
let cache: PageCache;
let index: SearchIndex;

before(async () => {
  database = await freshDatabase();
  db = new CrawlDatabase(database.url, 4);
  cache = new PageCache(db);
  index = new SearchIndex(db);
});

after(async () => {
  await db.$disconnect();
  await database.drop();
});

const page = (url: string, title: string, words: string): CachedPage => ({
  finalUrl: url,
  status: 200,
  contentType: 'text/html',
  engine: 'fetch',
  html: `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${words}</p></main></body></html>`,
});

const write = (workspaceId: string, key: string, raw: CachedPage) => ({
  workspaceId,
  cacheKey: key,
  url: raw.finalUrl,
  page: raw,
  extracted: extract(raw.html, raw.finalUrl, { formats: ['text', 'metadata'] }),
});

test('pages stored at once are each cached and searchable, the last write of a key winning', async () => {
  const ws = randomUUID();
  const herons = page('https://birds.test/herons', 'Herons', 'The quiet heron waits in the reeds.');
  const egrets = page('https://birds.test/egrets', 'Egrets', 'Egrets nest in colonies by the estuary.');
  const newer = page('https://birds.test/herons', 'Herons again', 'A second visit to the patient heron.');
  // In one turn: they leave as batches, the same key twice among them.
  await Promise.all([
    cache.store(write(ws, 'k-herons', herons)),
    cache.store(write(ws, 'k-egrets', egrets)),
    cache.store(write(ws, 'k-herons', newer)),
  ]);
  assert.equal((await cache.fresh(ws, 'k-herons', 60_000))?.html, newer.html);
  assert.equal((await cache.fresh(ws, 'k-egrets', 60_000))?.finalUrl, 'https://birds.test/egrets');
  assert.equal(await cache.fresh(ws, 'k-herons', 0), undefined, 'maxAge 0 always fetches');
  assert.ok(await cache.fresh(ws, 'k-egrets', Number.MAX_SAFE_INTEGER), 'any maxAge, however large');
  assert.equal(await cache.fresh(randomUUID(), 'k-herons', 60_000), undefined, 'another workspace sees nothing');
  assert.deepEqual(
    (await index.search(ws, 'estuary', 10)).map((h) => h.url),
    ['https://birds.test/egrets'],
  );
  assert.deepEqual(
    (await index.search(ws, 'patient heron', 10)).map((h) => [h.url, h.title]),
    [['https://birds.test/herons', 'Herons again']],
  );
});

test('a page holding a NUL is still kept, without it', async () => {
  const ws = randomUUID();
  const raw = page('https://nul.test/', 'Nul', 'before\u0000after');
  await cache.store(write(ws, 'k-nul', raw));
  assert.equal((await cache.fresh(ws, 'k-nul', 60_000))?.html, raw.html.replace('\u0000', ''));
});

test('copies older than the retention are expired', async () => {
  const ws = randomUUID();
  await cache.store(write(ws, 'k-old', page('https://old.test/', 'Old', 'words')));
  await db.pool.query(`UPDATE cached_pages SET fetched_at = now() - interval '2 days' WHERE workspace_id = $1`, [ws]);
  assert.equal(await cache.fresh(ws, 'k-old', 86_400_000), undefined, 'too old for a day');
  assert.ok((await cache.expire(86_400_000)) >= 1);
  assert.equal((await cache.fresh(ws, 'k-old', 10 * 86_400_000)) === undefined, true, 'gone');
});
