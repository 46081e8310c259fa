// Firecrawl's `appendToId` on a batch scrape (docs/migrating-from-firecrawl.md): pages added to a
// running batch of the workspace with both clients, scraped with it and billed a credit each, the
// added pages held for with a hold of their own that is settled and released as the first is; a
// batch of another workspace is not found, one that ended or a crawl is refused with a message.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { availableCredits, call } from './api.js';
import { pyCall, pyOk } from './firecrawl-py.js';
import { fleet, sharedFleet } from './shared-fleet.js';

/** Every answer late: a batch of it with one page at a time is still running when pages are appended. */
let slow: TestSite;
const article = (i: number) => `${slow.url}/articles/${i}`;

describe('Firecrawl v2 batch scrape appendToId', () => {
  before(async () => {
    slow = await startTestSite({ pages: 40, host: '127.0.0.2', extras: false, latencyMs: 250 });
    await sharedFleet('site');
  });
  after(async () => {
    await slow?.close();
  });

  const batchStatus = (key: string, id: string) =>
    call<{ status: string; completed: number; total: number; creditsUsed: number }>(
      fleet.gatewayUrl,
      'GET',
      `/v2/batch/scrape/${id}`,
      { key },
    );

  test('JS appendToId adds pages to a running batch: every page once, 1 credit each, both holds released', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const app = new Firecrawl({ apiKey, apiUrl: fleet.gatewayUrl });
    const before = await availableCredits(fleet.gatewayUrl, apiKey);
    const first = Array.from({ length: 20 }, (_, i) => article(i));
    const options = { formats: ['markdown' as const] };
    const started = await app.startBatchScrape(first, { options, maxConcurrency: 1 });
    // 20 more, one already in the batch: 19 new pages, so the 25-page billing blocks straddle both holds.
    const more = [article(0), ...Array.from({ length: 19 }, (_, i) => article(20 + i))];
    const appended = await app.startBatchScrape(more, { options, appendToId: started.id });
    assert.equal(appended.id, started.id);
    const running = await batchStatus(apiKey, started.id);
    assert.equal(running.body.status, 'scraping', 'the append landed while the batch ran');
    assert.equal(running.body.total, 39);
    await until(
      'the batch completed',
      async () => (await batchStatus(apiKey, started.id)).body.status === 'completed',
      120_000,
    );
    const job = await app.getBatchScrapeStatus(started.id, { autoPaginate: true });
    const urls = job.data.map((d) => d.metadata?.url).sort();
    assert.deepEqual(urls, [...first, ...more.slice(1)].sort());
    assert.equal(job.creditsUsed, 39);
    // Billed the pages delivered, no more: what the two holds kept back is available again.
    assert.equal(before - (await availableCredits(fleet.gatewayUrl, apiKey)), 39);
  });

  test('Python append_to_id: another workspace’s batch is not found, an ended batch and a crawl are refused', async () => {
    const owner = await fleet.workspace('pro');
    const other = await fleet.workspace('pro');
    const py = <T>(key: string, method: string, args: unknown[], kwargs: Record<string, unknown> = {}) =>
      pyCall<T>(fleet.gatewayUrl, key, method, args, kwargs);
    // firecrawl-py's finished job carries no id: the batch is started, then waited for.
    const done = pyOk(await py<{ id: string }>(owner.apiKey, 'start_batch_scrape', [[article(1)]]));
    await until(
      'the batch completed',
      async () => (await batchStatus(owner.apiKey, done.id)).body.status === 'completed',
    );
    const balance = await availableCredits(fleet.gatewayUrl, owner.apiKey);
    const foreign = await py(other.apiKey, 'start_batch_scrape', [[article(2)]], { append_to_id: done.id });
    assert.ok(!foreign.ok);
    assert.equal(foreign.status, 404, JSON.stringify(foreign));
    assert.equal(foreign.code, 'not_found');
    const ended = await py(owner.apiKey, 'start_batch_scrape', [[article(2)]], { append_to_id: done.id });
    assert.ok(!ended.ok);
    assert.equal(ended.status, 400, JSON.stringify(ended));
    assert.match(JSON.stringify(ended), /has ended \(completed\)/);
    const crawl = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v2/crawl', {
      key: owner.apiKey,
      body: { url: `${slow.url}/`, limit: 1 },
    });
    const onCrawl = await call<{ success: boolean; error: string }>(fleet.gatewayUrl, 'POST', '/v2/batch/scrape', {
      key: owner.apiKey,
      body: { urls: [article(3)], appendToId: crawl.body.id },
    });
    assert.equal(onCrawl.status, 400);
    assert.equal(onCrawl.body.success, false);
    assert.match(JSON.stringify(onCrawl.body), /a crawl: pages are appended to a batch scrape only/);
    const missing = await call(fleet.gatewayUrl, 'POST', '/v1/batch/scrape', {
      key: owner.apiKey,
      body: { urls: [article(3)], appendToId: '00000000-0000-4000-8000-000000000000' },
    });
    assert.equal(missing.status, 404);
    // None of the refused appends held or charged anything (the crawl's page aside).
    await until('the crawl settled', async () => {
      const c = await call<{ status: string }>(fleet.gatewayUrl, 'GET', `/v2/crawl/${crawl.body.id}`, {
        key: owner.apiKey,
      });
      return c.body.status === 'completed';
    });
    assert.equal(balance - (await availableCredits(fleet.gatewayUrl, owner.apiKey)), 1);
  });

  test('an append asking other formats than the batch’s is refused, naming appendToId', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const started = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v2/batch/scrape', {
      key: apiKey,
      body: { urls: [article(5), article(6)], formats: ['markdown'], maxConcurrency: 1 },
    });
    const other = await call<{ details: unknown }>(fleet.gatewayUrl, 'POST', '/v2/batch/scrape', {
      key: apiKey,
      body: { urls: [article(7)], formats: ['html'], appendToId: started.body.id },
    });
    assert.equal(other.status, 400, JSON.stringify(other.body));
    assert.match(JSON.stringify(other.body.details), /appendToId.*same formats/);
  });
});
