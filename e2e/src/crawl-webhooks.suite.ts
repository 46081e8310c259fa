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
    // `webhookId` is Firecrawl's delivery id in the body: the `webhook-id` header's, the same on every attempt.
    const deliveryId = (b: Record<string, unknown> | undefined) => b?.webhookId as string;
    assert.deepEqual(started, {
      success: true,
      type: 'batch_scrape.started',
      id: r.body.id,
      webhookId: deliveryId(started),
      data: [],
      metadata: { job: 'nightly', n: 2 },
    });
    assert.deepEqual(completed, { ...started, type: 'batch_scrape.completed', webhookId: deliveryId(completed) });
    for (const h of delivered('/batch')) assert.equal(h.headers['webhook-id'], `msg_${deliveryId(bodyOf(h))}`);
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

  test('the JS client’s crawl with a webhook URL gets crawl.started, a crawl.page per page, then crawl.completed', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const app = new Firecrawl({ apiKey, apiUrl: fleet.gatewayUrl });
    const { id } = await app.startCrawl(`${site.url}/`, { limit: 3, webhook: `${hookBase}/crawl` });
    // Senders post at once what is due: `completed` may overtake the last page's event on the wire.
    await until('the crawl’s five events delivered', () => delivered('/crawl').length === 5, 60_000);
    const events = delivered('/crawl').map(bodyOf);
    assert.deepEqual(events.map((e) => [e.type, e.id]).sort(), [
      ['crawl.completed', id],
      ['crawl.page', id],
      ['crawl.page', id],
      ['crawl.page', id],
      ['crawl.started', id],
    ]);
    // Each page event carries its page as the crawl's status answers it: the same three pages.
    const status = await app.getCrawlStatus(id);
    const pageUrls = (list: { metadata?: { url?: string } }[]) => list.map((d) => d.metadata?.url).sort();
    const sent = events.filter((e) => e.type === 'crawl.page').map((e) => (e.data as Record<string, unknown>[])[0]);
    assert.deepEqual(pageUrls(sent as never), pageUrls(status.data as never));
    for (const doc of sent) assert.match(String(doc?.markdown), /\w/, 'the page’s markdown is in the event');
  });

  test('a batch whose webhook asks `page` alone gets one signed batch_scrape.page per URL, with the formats asked', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const urls = [0, 1, 2].map((i) => `${site.url}/articles/${i}`);
    answers['/pages'] = [503];
    const r = await call<{ id: string; webhookSecret: string }>(fleet.gatewayUrl, 'POST', '/v2/batch/scrape', {
      key: apiKey,
      body: {
        urls,
        formats: ['markdown', 'links'],
        webhook: { url: `${hookBase}/pages`, metadata: { run: 7 }, events: ['page'] },
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await until('three page events delivered', () => delivered('/pages').length === 3, 60_000);
    const bodies = delivered('/pages').map(bodyOf);
    for (const b of bodies) {
      assert.equal(b.type, 'batch_scrape.page');
      assert.equal(b.id, r.body.id);
      assert.deepEqual(b.metadata, { run: 7 });
      const [doc] = b.data as { markdown: string; links: string[]; metadata: { url: string; statusCode: number } }[];
      assert.equal(doc?.metadata.statusCode, 200);
      assert.ok(Array.isArray(doc?.links), 'links asked, links sent');
      assert.match(String(doc?.markdown), /\w/);
    }
    assert.deepEqual(bodies.map((b) => (b.data as { metadata: { url: string } }[])[0]?.metadata.url).sort(), urls);
    // The 503 was tried again under the same id; every delivery verifies with the batch's secret.
    const pageHits = hits.filter((h) => h.path === '/pages');
    assert.equal(pageHits.length, 4);
    assert.equal(new Set(pageHits.map((h) => h.headers['webhook-id'])).size, 3);
    for (const h of pageHits) new Webhook(r.body.webhookSecret).verify(h.raw, h.headers as Record<string, string>);
    // No other event was asked for: none is sent once the batch is over.
    await until('the batch completed', async () => {
      const s = await call<{ status: string }>(fleet.gatewayUrl, 'GET', `/v2/batch/scrape/${r.body.id}`, {
        key: apiKey,
      });
      return s.body.status === 'completed';
    });
    assert.ok(
      delivered('/pages').every((h) => bodyOf(h).type === 'batch_scrape.page'),
      'only page events',
    );
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

  test('a webhook the guard refuses, or an event we do not know, is refused before anything is held', async () => {
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
    const unknown = await call<{ error: { code: string } }>(fleet.gatewayUrl, 'POST', '/v1/batch/scrape', {
      key: apiKey,
      body: { urls, webhook: { url: `${hookBase}/never`, events: ['page', 'action'] } },
    });
    assert.equal(unknown.status, 400, JSON.stringify(unknown.body));
    assert.match(JSON.stringify(unknown.body), /webhook/);
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
