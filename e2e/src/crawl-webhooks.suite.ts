// A crawl's or a batch scrape's webhook, as Firecrawl's clients send it (docs/crawl.md,
// "Webhooks"): its events reach a receiver on loopback in Firecrawl's body, signed per
// Standard Webhooks with the secret the start answered, retried after a 5xx under the same
// `webhook-id`, with the receiver's own headers; the secret and those headers are never logged.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { Webhook } from 'standardwebhooks';
import { availableCredits, call } from './api.js';
import { fleet, sharedFleet } from './shared-fleet.js';

interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  status: number;
}

let site: TestSite;
let receiver: Server;
let hookBase = '';
const hits: Hit[] = [];
/** Statuses to answer a path's next deliveries with (then 200). */
const answers: Record<string, number[]> = {};

const bodyOf = (h: Hit) => JSON.parse(h.raw) as Record<string, unknown>;
const delivered = (path: string) => hits.filter((h) => h.path === path && h.status === 200);

describe('crawl and batch webhooks', () => {
  before(async () => {
    // 127.0.0.2 is the one address the site fleet's egress lets through: the receiver listens there too.
    site = await startTestSite({ pages: 6, host: '127.0.0.2', extras: false });
    receiver = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => {
        raw += c;
      });
      req.on('end', () => {
        const path = req.url ?? '';
        const status = answers[path]?.shift() ?? 200;
        hits.push({ path, headers: req.headers, raw, status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.2', r));
    hookBase = `http://127.0.0.2:${(receiver.address() as { port: number }).port}`;
    await sharedFleet('site');
  });
  after(async () => {
    await site?.close();
    await new Promise((r) => receiver?.close(r));
  });

  test('a v2 batch posts started then completed, signed, with its metadata and headers; a 500 is retried under one id', async () => {
    const { apiKey } = await fleet.workspace('pro');
    answers['/batch'] = [500];
    const urls = [`${site.url}/articles/0`, `${site.url}/articles/1`];
    const r = await call<{ id: string; webhookSecret: string }>(fleet.gatewayUrl, 'POST', '/v2/batch/scrape', {
      key: apiKey,
      body: {
        urls,
        formats: ['markdown'],
        webhook: {
          url: `${hookBase}/batch`,
          headers: { authorization: 'Bearer receiver-token-7f3a' },
          metadata: { job: 'nightly', n: 2 },
          events: ['started', 'completed'],
        },
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.match(r.body.webhookSecret, /^whsec_/);
    await until('both events delivered', () => delivered('/batch').length === 2, 60_000);
    // A retried event may land after a later one: a receiver orders them by `type`, not by arrival.
    const byType = (type: string) =>
      delivered('/batch')
        .map(bodyOf)
        .find((b) => b.type === type);
    const [started, completed] = [byType('batch_scrape.started'), byType('batch_scrape.completed')];
    assert.deepEqual(started, {
      success: true,
      type: 'batch_scrape.started',
      id: r.body.id,
      data: [],
      metadata: { job: 'nightly', n: 2 },
    });
    assert.deepEqual(completed, { ...started, type: 'batch_scrape.completed' });
    // The batch is over by the time it says so: its pages are there to read.
    const status = await call<{ status: string; completed: number }>(
      fleet.gatewayUrl,
      'GET',
      `/v2/batch/scrape/${r.body.id}`,
      { key: apiKey },
    );
    assert.equal(status.body.status, 'completed');
    assert.equal(status.body.completed, 2);
    const batchHits = hits.filter((h) => h.path === '/batch');
    // The first delivery answered 500 and was tried again: one message, one id, a receiver drops the repeat.
    const firstTry = batchHits.find((h) => h.status === 500);
    assert.ok(firstTry, 'the 500 was answered');
    const ids = new Set(batchHits.filter((h) => h.raw === firstTry.raw).map((h) => h.headers['webhook-id']));
    assert.equal(ids.size, 1);
    assert.equal(batchHits.filter((h) => h.raw === firstTry.raw).length, 2);
    for (const h of batchHits) {
      assert.equal(h.headers.authorization, 'Bearer receiver-token-7f3a');
      new Webhook(r.body.webhookSecret).verify(h.raw, h.headers as Record<string, string>);
    }
    assert.throws(() =>
      new Webhook(`whsec_${Buffer.alloc(32).toString('base64')}`).verify(
        firstTry.raw,
        firstTry.headers as Record<string, string>,
      ),
    );
    // Neither the secret nor the receiver's headers reach a log.
    for (const service of ['crawl', 'gateway'] as const) {
      const log = readFileSync(fleet.logFile(service), 'utf8');
      assert.ok(!log.includes('receiver-token-7f3a'), `${service} logged the receiver's header`);
      assert.ok(!log.includes(r.body.webhookSecret.slice(6, 30)), `${service} logged the secret`);
    }
  });

  test('the JS client’s crawl with a webhook URL gets crawl.started and crawl.completed', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const app = new Firecrawl({ apiKey, apiUrl: fleet.gatewayUrl });
    const { id } = await app.startCrawl(`${site.url}/`, { limit: 3, webhook: `${hookBase}/crawl` });
    await until('the crawl’s completed event delivered', () => delivered('/crawl').length === 2, 60_000);
    const types = delivered('/crawl')
      .map((h) => [bodyOf(h).type, bodyOf(h).id])
      .sort();
    assert.deepEqual(types, [
      ['crawl.completed', id],
      ['crawl.started', id],
    ]);
  });

  test('a cancelled batch posts failed, with its error', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const slow = await startTestSite({ pages: 20, host: '127.0.0.2', extras: false, latencyMs: 500 });
    try {
      const urls = Array.from({ length: 20 }, (_, i) => `${slow.url}/articles/${i}`);
      const r = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/batch/scrape', {
        key: apiKey,
        body: { urls, maxConcurrency: 1, webhook: { url: `${hookBase}/cancelled`, events: ['failed'] } },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const cancel = await call(fleet.gatewayUrl, 'DELETE', `/v1/batch/scrape/${r.body.id}`, { key: apiKey });
      assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
      await until('the failed event delivered', () => delivered('/cancelled').length === 1, 60_000);
      const event = bodyOf(delivered('/cancelled')[0] as Hit);
      assert.equal(event.type, 'batch_scrape.failed');
      assert.equal(event.success, false);
      assert.equal(event.id, r.body.id);
      assert.match(String(event.error), /cancelled/);
    } finally {
      await slow.close();
    }
  });

  test('a webhook the guard refuses, or a page event, is refused before anything is held', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const urls = [`${site.url}/articles/0`];
    const balance = await availableCredits(fleet.gatewayUrl, apiKey);
    // Loopback outside the egress allow-list: refused as a monitor's webhook or a page at a private address is.
    const guarded = await call<{ code: string; details: { reason: string } }>(
      fleet.gatewayUrl,
      'POST',
      '/v1/batch/scrape',
      { key: apiKey, body: { urls, webhook: 'http://127.0.0.1:9/h' } },
    );
    assert.equal(guarded.status, 422, JSON.stringify(guarded.body));
    assert.deepEqual([guarded.body.code, guarded.body.details.reason], ['page_unreachable', 'private_address']);
    const page = await call<{ error: { code: string } }>(fleet.gatewayUrl, 'POST', '/v1/batch/scrape', {
      key: apiKey,
      body: { urls, webhook: { url: `${hookBase}/never`, events: ['page'] } },
    });
    assert.equal(page.status, 400, JSON.stringify(page.body));
    assert.match(JSON.stringify(page.body), /webhook\.events\.0/);
    const signed = await call(fleet.gatewayUrl, 'POST', '/v1/batch/scrape', {
      key: apiKey,
      body: { urls, webhook: { url: `${hookBase}/never`, headers: { 'Webhook-Signature': 'v1,forged' } } },
    });
    assert.equal(signed.status, 400, JSON.stringify(signed.body));
    assert.match(JSON.stringify(signed.body), /webhook\.headers\.Webhook-Signature/);
    const extract = await call(fleet.gatewayUrl, 'POST', '/v2/extract', {
      key: apiKey,
      body: { urls, prompt: 'the title', webhook: `${hookBase}/never` },
    });
    assert.equal(extract.status, 400, JSON.stringify(extract.body));
    assert.equal(hits.filter((h) => h.path === '/never').length, 0);
    assert.equal(await availableCredits(fleet.gatewayUrl, apiKey), balance, 'nothing charged');
  });
});
