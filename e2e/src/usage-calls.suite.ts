// GET /v1/usage/calls through a whole fleet: each billed scrape listed newest
// first with the usage its answer carried, paged by cursor, one workspace's only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { call } from './api.js';
import { fleet, sharedFleet } from './shared-fleet.js';

interface Usage {
  credits: number;
  meters: Record<string, number>;
}
interface BillableCall {
  id: string;
  at: string;
  capability: string;
  reference: string;
  usage: Usage;
}
interface CallsPage {
  calls: BillableCall[];
  nextCursor: string | null;
}

let site: TestSite;
let key: string;
let otherKey: string;
/** The three scrapes' answers, in the order they were made. */
const scraped: Usage[] = [];
/** Their X-Request-Id headers, in the same order. */
const requestIds: string[] = [];

const calls = (query = '', apiKey = key) =>
  call<CallsPage>(fleet.gatewayUrl, 'GET', `/v1/usage/calls${query}`, { key: apiKey });

async function scrape(page: number, headers: Record<string, string> = {}) {
  const r = await call<{ usage: Usage }>(fleet.gatewayUrl, 'POST', '/v1/scrape', {
    key,
    body: { url: `${site.url}/articles/${page}`, formats: ['markdown'], engine: 'fetch' },
    headers,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r;
}

function issuePaths(body: unknown): string[] {
  const b = body as { code?: string; details?: { issues: { path: string }[] } };
  assert.equal(b.code, 'bad_request', JSON.stringify(body));
  return (b.details?.issues ?? []).map((i) => i.path);
}

describe('GET /v1/usage/calls', () => {
  before(async () => {
    // The test site on 127.0.0.2, the one loopback address the fleet's egress guard lets through.
    site = await startTestSite({ pages: 5, host: '127.0.0.2' });
    await sharedFleet('site');
    ({ apiKey: key } = await fleet.workspace('pro'));
    ({ apiKey: otherKey } = await fleet.workspace('pro'));
  });

  after(async () => {
    await site?.close();
  });

  test('each scrape is listed newest first with the usage its answer carried', async () => {
    const first = await scrape(1, { 'Idempotency-Key': 'usage-calls-first' });
    // A retry with the same key is answered again, not billed again: no call of its own.
    const replay = await scrape(1, { 'Idempotency-Key': 'usage-calls-first' });
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    const [second, third] = [await scrape(2), await scrape(3)];
    scraped.push(first.body.usage, second.body.usage, third.body.usage);
    for (const r of [first, second, third]) requestIds.push(r.headers.get('x-request-id') ?? '');
    for (const usage of scraped) assert.ok(usage.credits > 0, JSON.stringify(usage));

    const r = await calls();
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.nextCursor, null, 'three calls fit the default page');
    assert.deepEqual(
      r.body.calls.map((c) => c.capability),
      ['scrape', 'scrape', 'scrape'],
    );
    assert.deepEqual(
      r.body.calls.map((c) => c.usage),
      [...scraped].reverse(),
      'newest first, each with the credits and meters of its own answer',
    );
    const times = r.body.calls.map((c) => Date.parse(c.at));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
      'newest first by time',
    );
    // A scrape is listed under the request id its answer carried (X-Request-Id).
    assert.deepEqual(
      r.body.calls.map((c) => c.reference),
      [...requestIds].reverse(),
    );
    assert.equal(new Set(requestIds).size, 3, 'one request id per request');
    // The day's usage says what each meter cost, so the console draws it without a copy of the prices.
    const usage = await call<{ byDay: { credits: number; creditsByMeter: Record<string, number> }[] }>(
      fleet.gatewayUrl,
      'GET',
      '/v1/usage',
      { key },
    );
    const total = scraped.reduce((sum, u) => sum + u.credits, 0);
    // (Summed over the days, for a test that runs across midnight UTC.)
    const days = usage.body.byDay;
    assert.ok(
      days.every((d) => Object.keys(d.creditsByMeter).join() === 'page_load'),
      JSON.stringify(days),
    );
    const sum = (values: number[]) => Math.round(values.reduce((a, b) => a + b, 0) * 1000) / 1000;
    assert.equal(sum(days.map((d) => d.creditsByMeter.page_load ?? 0)), total);
    assert.equal(sum(days.map((d) => d.credits)), total);
  });

  test('pages of a cursor walk every call once, in the same order', async () => {
    const whole = (await calls()).body.calls;
    assert.equal(whole.length, scraped.length);
    const walked: BillableCall[] = [];
    const sizes: number[] = [];
    let cursor: string | null = '';
    while (cursor !== null && sizes.length < 10) {
      const r = await calls(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      walked.push(...r.body.calls);
      sizes.push(r.body.calls.length);
      cursor = r.body.nextCursor;
    }
    assert.deepEqual(sizes, [2, 1]);
    assert.deepEqual(walked, whole);
  });

  test('another workspace sees none of it, with or without the first one’s cursor', async () => {
    const mine = await calls('?limit=1');
    assert.ok(mine.body.nextCursor, 'a cursor to borrow');
    for (const query of ['', `?cursor=${encodeURIComponent(mine.body.nextCursor ?? '')}`]) {
      const r = await calls(query, otherKey);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body, { calls: [], nextCursor: null }, query);
    }
  });

  test('a limit out of 1..100 or a cursor the route did not give is 400 bad_request naming it', async () => {
    for (const limit of ['0', '101', 'ten']) {
      const r = await calls(`?limit=${limit}`);
      assert.equal(r.status, 400, limit);
      assert.deepEqual(issuePaths(r.body), ['query.limit'], limit);
    }
    const r = await calls('?cursor=not-a-cursor');
    assert.equal(r.status, 400);
    assert.deepEqual(issuePaths(r.body), ['query.cursor']);
  });

  test('a crawl is listed under its id', async () => {
    const started = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/crawl', {
      key: otherKey,
      body: { url: `${site.url}/articles/1`, limit: 1, scrapeOptions: { formats: ['markdown'] } },
    });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    await until('the crawl billed its page', async () => {
      const r = await calls('', otherKey);
      return r.body.calls.some((c) => c.capability === 'crawl' && c.usage.credits > 0);
    });
    const crawled = (await calls('', otherKey)).body.calls.filter((c) => c.capability === 'crawl');
    assert.ok(crawled.length > 0 && crawled.every((c) => c.reference === started.body.id), JSON.stringify(crawled));
  });
});
