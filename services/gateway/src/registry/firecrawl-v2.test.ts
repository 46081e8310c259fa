import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, isApiError, toErrorBody } from '@wap/errors';
import { firecrawlErrorBody } from '../http/errors.js';
import { FIRECRAWL_V2, scrapeOptionsOf } from './firecrawl-v2.js';
import type { RawInput } from './types.js';

const routeOf = (row: string, path: string) => {
  const route = FIRECRAWL_V2[row]?.find((r) => r.path === path);
  assert.ok(route?.translate, `${row} at ${path}`);
  return route.translate;
};
const input = (body: unknown): RawInput => ({ params: {}, query: {}, body });

test('scrape options: the Python client’s defaults are dropped, v2’s format objects named as ours', () => {
  const sent = {
    formats: [
      'markdown',
      { type: 'screenshot', fullPage: true },
      { type: 'screenshot' },
      { type: 'json', prompt: 'x' },
    ],
    onlyMainContent: true,
    skipTlsVerification: true,
    removeBase64Images: true,
    fastMode: false,
    blockAds: true,
    maxAge: 14_400_000,
    storeInCache: true,
  };
  assert.deepEqual(scrapeOptionsOf(sent), {
    formats: ['markdown', 'screenshot@fullPage', 'screenshot', { type: 'json', prompt: 'x' }],
    onlyMainContent: true,
    maxAge: 14_400_000,
  });
  // A value that asks something of us stays, for the row to refuse by name.
  assert.deepEqual(scrapeOptionsOf({ fastMode: true, storeInCache: false }), { fastMode: true, storeInCache: false });
  assert.deepEqual(scrapeOptionsOf({ formats: [{ type: 'screenshot', quality: 50 }] }), {
    formats: [{ type: 'screenshot', quality: 50 }],
  });
});

test('scrape: the query format is the json format with a one-string schema, its answer in answer', () => {
  const scrape = routeOf('scrape', '/v2/scrape');
  const sent = input({
    url: 'https://a.test/',
    formats: ['markdown', { type: 'query', prompt: 'Who?', mode: 'freeform' }],
  });
  const body = scrape.request?.(sent).body as { formats: unknown[] };
  assert.deepEqual(body.formats[0], 'markdown');
  assert.deepEqual(body.formats[1], {
    type: 'json',
    prompt: 'Answer this question about the page: Who?',
    schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
  });
  const ours = { success: true, data: { markdown: '# A', json: { answer: 'Ada' }, metadata: {} } };
  assert.deepEqual(scrape.response?.(ours, sent), {
    success: true,
    data: { markdown: '# A', answer: 'Ada', metadata: {} },
  });
  // What the json format cannot answer stays as sent, for the row to refuse by name.
  for (const formats of [
    [{ type: 'query', prompt: 'Who?', mode: 'directQuote' }],
    [
      { type: 'query', prompt: 'Who?' },
      { type: 'json', prompt: 'x' },
    ],
  ]) {
    const kept = input({ url: 'https://a.test/', formats });
    assert.deepEqual((scrape.request?.(kept).body as { formats?: unknown } | undefined)?.formats, formats);
    assert.deepEqual(scrape.response?.(ours, kept), ours);
  }
});

test('parse: the document under data, nothing beside it (firecrawl-mcp allows no other field)', () => {
  const parse = routeOf('parse', '/v2/parse');
  const ours = { success: true, data: { markdown: '# A' }, usage: { credits: 1, meters: {} } };
  assert.deepEqual(parse.response?.(ours, input({})), { success: true, data: { markdown: '# A' } });
});

test('crawl: maxDiscoveryDepth is maxDepth, and without crawlEntireDomain the paths under the start URL’s', () => {
  const crawl = routeOf('crawl', '/v2/crawl');
  const sent = {
    url: 'https://a.test/docs/v1.2/',
    maxDiscoveryDepth: 2,
    crawlEntireDomain: false,
    ignoreRobotsTxt: false,
    deduplicateSimilarURLs: true,
    scrapeOptions: { formats: ['markdown'], blockAds: true },
  };
  assert.deepEqual(crawl.request?.(input(sent)).body, {
    url: 'https://a.test/docs/v1.2/',
    maxDepth: 2,
    includePaths: ['^/docs/v1\\.2'],
    scrapeOptions: { formats: ['markdown'] },
  });
  const whole = crawl.request?.(input({ url: 'https://a.test/docs/', crawlEntireDomain: true })).body;
  assert.deepEqual(whole, { url: 'https://a.test/docs/' });
  assert.deepEqual(crawl.request?.(input({ url: 'https://a.test/' })).body, { url: 'https://a.test/' });
  // Where the job answers, on /v2 as Firecrawl's v2 answers it.
  const started = { success: true, id: 'c1', url: 'https://api.test/v1/crawl/c1' };
  assert.deepEqual(crawl.response?.(started, input({})), { ...started, url: 'https://api.test/v2/crawl/c1' });
  const batch = routeOf('batch.scrape', '/v2/batch/scrape');
  assert.deepEqual(batch.response?.({ ...started, url: 'https://api.test/v1/batch/scrape/c1' }, input({})), {
    ...started,
    url: 'https://api.test/v2/batch/scrape/c1',
  });
});

test('search: web results grouped under data.web; other sources refused by name', () => {
  const search = routeOf('search', '/v2/search');
  assert.deepEqual(search.request?.(input({ query: 'q', sources: ['web'], ignoreInvalidURLs: false })).body, {
    query: 'q',
  });
  // firecrawl-mcp's every search: its catalogue's options, asking nothing without the catalogue.
  const mcp = { query: 'q', limit: 3, sources: ['web'], domainTools: false, toolDetail: 'compact' };
  assert.deepEqual(search.request?.(input(mcp)).body, { query: 'q', limit: 3 });
  // Its first try asks for the catalogue of hosted tools: refused as Firecrawl refuses a team
  // without it, the answer on which firecrawl-mcp searches the web alone.
  const catalogue = { ...mcp, sources: ['web', 'alexandria'], domainTools: true };
  assert.throws(
    () => search.request?.(input(catalogue)),
    (err) =>
      isApiError(err) &&
      err.status === 403 &&
      firecrawlErrorBody(toErrorBody(err, 'r')).error === 'Exchange is not enabled for this team.' &&
      JSON.stringify(err.details).includes('body.sources.1'),
  );
  assert.throws(
    () => search.request?.(input({ query: 'q', sources: [{ type: 'web' }, { type: 'news' }] })),
    (err) => isApiError(err) && JSON.stringify(err.details).includes('body.sources.1'),
  );
  // Firecrawl's fields alone: firecrawl-mcp refuses an answer with any other.
  const ours = { success: true, data: [{ url: 'u' }], provider: 'builtin', usage: { credits: 5, meters: {} } };
  assert.deepEqual(search.response?.(ours, input({})), {
    success: true,
    data: { web: [{ url: 'u' }] },
    creditsUsed: 5,
  });
});

test('credit usage: the balance in whole credits, the allowance as the plan’s', () => {
  const usage = routeOf('credits', '/v2/team/credit-usage');
  const answer = usage.response?.(
    { available: 1234.5, allowance: { plan: 'pro', credits: 5000, spent: 10, resetsAt: '2026-12-01T00:00:00.000Z' } },
    input(undefined),
  );
  assert.deepEqual(answer, {
    success: true,
    data: {
      remainingCredits: 1234,
      planCredits: 5000,
      billingPeriodStart: null,
      billingPeriodEnd: '2026-12-01T00:00:00.000Z',
    },
  });
});

test('crawl errors: each failure with its code, in v2’s list', () => {
  const errors = routeOf('crawl.get', '/v2/crawl/{id}/errors');
  const body = {
    crawl: { failures: [{ url: 'https://a.test/x', code: 'page_unreachable', details: { reason: 'dns' } }] },
  };
  assert.deepEqual(errors.response?.(body, input(undefined)), {
    success: true,
    errors: [{ id: '0', url: 'https://a.test/x', code: 'page_unreachable', error: 'page_unreachable: dns' }],
    robotsBlocked: [],
  });
});

test('the v2 error body carries our message, code and details; a route we lack says it is not offered', () => {
  const bad = firecrawlErrorBody(
    toErrorBody(new ApiError('bad_request', { issues: [{ path: 'body.x', message: 'm' }] })),
  );
  assert.equal(bad.success, false);
  assert.equal(bad.code, 'bad_request');
  assert.equal(bad.error, toErrorBody(new ApiError('bad_request')).message);
  assert.deepEqual(bad.details, { issues: [{ path: 'body.x', message: 'm' }] });
  const missing = firecrawlErrorBody(toErrorBody(new ApiError('not_found', { notOffered: 'POST /v2/extract' })));
  assert.match(missing.error, /^POST \/v2\/extract is not offered by this server/);
  assert.equal(missing.code, 'not_found');
});

test('extract: a batch of the pages with the json format; patterns refused by name', () => {
  const start = routeOf('batch.scrape', '/v2/extract');
  const body = start.request?.(
    input({
      urls: ['https://a.test/1'],
      prompt: 'p',
      schema: { type: 'object' },
      systemPrompt: 's',
      enableWebSearch: false,
    }),
  ).body;
  assert.deepEqual(body, {
    urls: ['https://a.test/1'],
    formats: [{ type: 'json', schema: { type: 'object' }, prompt: 'p' }],
    jsonOptions: { systemPrompt: 's' },
  });
  assert.throws(
    () => start.request?.(input({ urls: ['https://a.test/1', 'https://a.test/*'], prompt: 'p' })),
    (err) => isApiError(err) && JSON.stringify(err.details).includes('body.urls.1'),
  );
});

test('extract status: processing while the batch runs, then the pages’ answers merged', () => {
  const status = routeOf('crawl.get', '/v2/extract/{id}');
  const running = status.response?.(
    { crawl: { id: 'x' }, status: 'scraping', data: [], creditsUsed: 0 },
    input(undefined),
  );
  assert.equal((running as { status: string }).status, 'processing');
  const done = status.response?.(
    {
      crawl: { id: 'x' },
      status: 'completed',
      creditsUsed: 3,
      data: [
        { url: 'u1', json: { name: 'A', price: null, tags: ['x'] } },
        { url: 'u2', json: { name: 'B', price: 3, tags: ['x', 'y'] } },
        { url: 'u3' },
      ],
    },
    input(undefined),
  ) as Record<string, unknown>;
  assert.deepEqual(done.data, { name: 'A', price: 3, tags: ['x', 'y'] });
  assert.equal(done.status, 'completed');
  assert.equal(done.warning, 'Not answered: u3');
  const none = status.response?.({ status: 'completed', data: [{ url: 'u1' }] }, input(undefined)) as Record<
    string,
    unknown
  >;
  assert.equal(none.status, 'failed');
});

test('active crawls: each running crawl’s id and url, the workspace as teamId', () => {
  const active = routeOf('crawl.list', '/v2/crawl/active');
  const body = { success: true, workspaceId: 'w1', crawls: [{ id: 'c1', url: 'https://a.test/', status: 'running' }] };
  assert.deepEqual(active.response?.(body, input(undefined)), {
    success: true,
    crawls: [{ id: 'c1', teamId: 'w1', url: 'https://a.test/' }],
  });
});

test('historical usage: the range’s credits or tokens as one period; per API key refused by name', () => {
  const credits = routeOf('usage', '/v2/team/credit-usage/historical');
  const tokens = routeOf('usage', '/v2/team/token-usage/historical');
  const body = { from: 'a', to: 'b', total: { credits: 2.5, meters: { page_load: 2, tokens: 1200 } } };
  assert.deepEqual(credits.response?.(body, input(undefined)), {
    success: true,
    periods: [{ startDate: 'a', endDate: 'b', creditsUsed: 3 }],
  });
  assert.deepEqual(tokens.response?.(body, input(undefined)), {
    success: true,
    periods: [{ startDate: 'a', endDate: 'b', tokensUsed: 1200 }],
  });
  assert.deepEqual(credits.request?.({ params: {}, query: { byApiKey: 'false' }, body: undefined }).query, {});
  assert.throws(
    () => credits.request?.({ params: {}, query: { byApiKey: 'true' }, body: undefined }),
    (err) => isApiError(err) && JSON.stringify(err.details).includes('query.byApiKey'),
  );
});

test('parse: firecrawl-py’s defaults and a proxy are dropped; a browser’s options asked stay, to be refused', () => {
  const parse = routeOf('parse', '/v2/parse');
  const sent = {
    name: 'minutes.docx',
    data: 'UEsD',
    onlyMainContent: false,
    skipTlsVerification: true,
    removeBase64Images: true,
    fastMode: false,
    blockAds: true,
    formats: ['markdown', 'html'],
    mobile: false,
    proxy: 'auto',
    origin: 'python-sdk@4.54.0',
  };
  assert.deepEqual(parse.request?.(input(sent)).body, {
    name: 'minutes.docx',
    data: 'UEsD',
    onlyMainContent: false,
    formats: ['markdown', 'html'],
    origin: 'python-sdk@4.54.0',
  });
  assert.deepEqual(parse.request?.(input({ mobile: true, waitFor: 500, proxy: 'stealth' })).body, {
    mobile: true,
    waitFor: 500,
    proxy: 'stealth',
  });
});
