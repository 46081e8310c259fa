import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crawlLink, firecrawlStatus } from './crawl-object.js';

test('Firecrawl’s clients keep polling a running crawl and read the pages of one that finished', () => {
  assert.equal(firecrawlStatus({ status: 'running', outcome: null }), 'scraping');
  assert.equal(firecrawlStatus({ status: 'settled', outcome: 'completed' }), 'completed');
  // Stopping at the spend cap is a finished crawl to Firecrawl too.
  assert.equal(firecrawlStatus({ status: 'settled', outcome: 'limit_reached' }), 'completed');
});

test('a cancelled crawl is cancelled while its last pages land and after; one that never got going failed', () => {
  assert.equal(firecrawlStatus({ status: 'cancelled', outcome: null }), 'cancelled');
  assert.equal(firecrawlStatus({ status: 'settled', outcome: 'cancelled' }), 'cancelled');
  assert.equal(firecrawlStatus({ status: 'settled', outcome: 'failed' }), 'failed');
  assert.equal(firecrawlStatus({ status: 'settled', outcome: 'expired' }), 'failed');
});

test('a crawl’s link starts at the public URL, with or without its trailing slash', () => {
  assert.equal(crawlLink('https://api.example.com/', 'crawl_1'), 'https://api.example.com/v1/crawl/crawl_1');
  assert.equal(crawlLink('http://127.0.0.1:8080', 'crawl_1'), 'http://127.0.0.1:8080/v1/crawl/crawl_1');
});
