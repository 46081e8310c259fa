// Which upgrades are Firecrawl's watchers: a crawl's or a batch's v2 or v1 status URL, nothing else.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { watchedCrawl } from './v2-watch.js';

const ID = '0b9f6c1e-7a52-4c1e-9d8e-2f3a4b5c6d7e';

test('the v2 and v1 status URLs of a crawl and a batch are watched; other paths go on to /connect', () => {
  assert.equal(watchedCrawl(`/v2/crawl/${ID}`), ID);
  assert.equal(watchedCrawl(`/v2/batch/scrape/${ID}/`), ID);
  assert.equal(watchedCrawl(`/v2/crawl/${ID}?x=1`), ID);
  assert.equal(watchedCrawl(`/v1/crawl/${ID}`), ID, 'the v1 clients’ crawlUrlAndWatch');
  for (const other of [
    `/v3/crawl/${ID}`,
    `/v1/crawl/${ID}/errors`,
    `/v2/crawl/${ID}/errors`,
    '/v2/crawl/active',
    '/connect',
    '/v2/crawl/../x',
  ])
    assert.equal(watchedCrawl(other), undefined, other);
});
