// Every CrawlService RPC checks its request before it holds, reads or queues
// anything: these are those checks, as plain functions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { isApiError } from '@wap/errors';
import { AllowList } from '@wap/netguard';
import { crawl } from '@wap/proto';
import { parseCrawlResults } from './crawl-results.js';
import { parseCrawlRef } from './parse.js';
import { parseScrape } from './scrape.js';
import { parseSearch } from './search.js';
import { parseStartCrawl } from './start-crawl.js';

const CRAWL_ID = '0b9f6c1e-7a52-4c1e-9d8e-2f3a4b5c6d7e';
const operation = { workspaceId: 'ws-1', requestId: 'op-1' };
const allow = AllowList.parse('');

/** Asserts `fn` throws the API error `code`, and with bad_request that it names `path`. */
function refuses(fn: () => unknown, code: string, path?: string): void {
  assert.throws(fn, (err) => {
    assert.ok(isApiError(err), `an ApiError, not ${err}`);
    assert.equal(err.code, code);
    if (path !== undefined)
      assert.deepEqual(
        ((err.details?.issues ?? []) as { path: string }[]).map((i) => i.path),
        [path],
      );
    return true;
  });
}

const startRequest = (url: string, options: MessageInitShape<typeof crawl.CrawlOptionsSchema> = {}) =>
  create(crawl.StartCrawlRequestSchema, { ...operation, url, options: { limit: 10, ...options } });

test('StartCrawl: an operation, a limit in range, patterns that compile and an http(s) start URL', () => {
  refuses(
    () => parseStartCrawl({ ...startRequest('https://a.test/'), requestId: '' }, allow),
    'bad_request',
    'requestId',
  );
  refuses(() => parseStartCrawl(startRequest('https://a.test/', { limit: 0 }), allow), 'bad_request', 'limit');
  refuses(() => parseStartCrawl(startRequest('https://a.test/', { limit: 10_001 }), allow), 'bad_request', 'limit');
  refuses(
    () => parseStartCrawl(startRequest('https://a.test/', { excludePaths: ['^/ok', '(unclosed'] }), allow),
    'bad_request',
    'excludePaths.1',
  );
  refuses(() => parseStartCrawl(startRequest('ftp://a.test/'), allow), 'bad_request', 'url');
  refuses(() => parseStartCrawl(startRequest('not a url'), allow), 'bad_request', 'url');
  refuses(() => parseStartCrawl(startRequest('http://10.0.0.1/'), allow), 'page_unreachable');
});

test('StartCrawl: the start URL keyed as the frontier keys it, and the per-host default filled in', () => {
  const { options, start, key } = parseStartCrawl(startRequest('HTTPS://A.test:443/docs/?utm_source=x#top'), allow);
  assert.equal(start.host, 'a.test');
  assert.equal(key, 'https://a.test/docs');
  assert.equal(options.maxConcurrencyPerHost, 4);
  const asked = parseStartCrawl(startRequest('https://a.test/', { maxConcurrencyPerHost: 2 }), allow);
  assert.equal(asked.options.maxConcurrencyPerHost, 2);
});

test('Scrape: an operation to bill; no options are the defaults', () => {
  refuses(
    () => parseScrape(create(crawl.ScrapeRequestSchema, { workspaceId: 'ws-1', url: 'https://a.test/' })),
    'bad_request',
    'requestId',
  );
  const { options } = parseScrape(create(crawl.ScrapeRequestSchema, { ...operation, url: 'https://a.test/' }));
  assert.deepEqual(options, create(crawl.ScrapeOptionsSchema, {}));
});

test('Search: an operation, a query, and a limit within bounds', () => {
  const search = (fields: MessageInitShape<typeof crawl.SearchRequestSchema>) =>
    parseSearch(create(crawl.SearchRequestSchema, { ...operation, query: 'herons', ...fields }));
  refuses(() => search({ query: '  ' }), 'bad_request', 'query');
  refuses(() => search({ requestId: '' }), 'bad_request', 'requestId');
  assert.equal(search({}).limit, 10);
  assert.equal(search({ limit: 7 }).limit, 7);
  assert.equal(search({ limit: 1_000 }).limit, 100);
  assert.equal(search({}).render, undefined);
  assert.ok(search({ scrapeOptions: {} }).render);
});

test('GetCrawl, CancelCrawl, CrawlResults: an id that cannot exist is not_found, before any read', () => {
  refuses(() => parseCrawlRef({ workspaceId: 'ws-1', crawlId: 'nope' }), 'not_found');
  refuses(() => parseCrawlRef({ workspaceId: 'ws-1', crawlId: '' }), 'not_found');
  assert.deepEqual(parseCrawlRef({ workspaceId: 'ws-1', crawlId: CRAWL_ID.toUpperCase() }), {
    workspaceId: 'ws-1',
    crawlId: CRAWL_ID.toUpperCase(),
  });
  const results = (pageSize: number) =>
    parseCrawlResults(create(crawl.CrawlResultsRequestSchema, { workspaceId: 'ws-1', crawlId: CRAWL_ID, pageSize }));
  assert.equal(results(0).pageSize, 50);
  assert.equal(results(20).pageSize, 20);
  assert.equal(results(5_000).pageSize, 100);
  refuses(() => parseCrawlResults(create(crawl.CrawlResultsRequestSchema, { crawlId: 'x' })), 'not_found');
});
