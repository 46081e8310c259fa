// Firecrawl's extract through its default v2 clients (docs/migrating-from-firecrawl.md): a batch
// scrape of the pages with the `json` format, answered by the deployment's model (the browsers
// fleet's scripted stand-in of an OpenAI-compatible endpoint), the pages' answers merged into one
// object: each field's first value that is not null, arrays joined.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import Firecrawl from '@mendable/firecrawl-js';
import { ROOT } from '@wap/fleet';
import { until } from '@wap/testkit';
import { fleet, scripted, sharedFleet } from './shared-fleet.js';

const run = promisify(execFile);
const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    price: { type: 'number' },
    related: { type: 'array', items: { type: 'string' } },
  },
};
const PAGE = (title: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${title} for sale.</p></main></body></html>`;

describe('Firecrawl v2 extract', () => {
  let site: Server;
  let base: string;
  let key: string;
  const pages = () => [`${base}/kettle`, `${base}/teapot`];

  before(async () => {
    site = createServer((req, res) => {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(PAGE(req.url === '/teapot' ? 'Teapot' : 'Kettle'));
    });
    site.listen(0, '127.0.0.1');
    await once(site, 'listening');
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    await sharedFleet('browsers');
    ({ apiKey: key } = await fleet.workspace('pro'));
    // Each page holds part of the answer: the merge takes each field where a page has it.
    scripted.pages.set(`${base}/kettle`, () => ({ name: 'Steel kettle', price: null, related: ['mugs'] }));
    scripted.pages.set(`${base}/teapot`, () => ({ name: null, price: 31, related: ['cups', 'mugs'] }));
  });
  after(async () => {
    for (const url of pages()) scripted?.pages.delete(url);
    site?.close();
  });

  const merged = (data: { related?: string[] } & Record<string, unknown>) => ({
    ...data,
    related: data.related?.toSorted(),
  });

  test('JS extract: one object from the pages, billed a page each', async () => {
    const app = new Firecrawl({ apiKey: key, apiUrl: fleet.gatewayUrl });
    const out = await app.extract({ urls: pages(), schema: SCHEMA, prompt: 'the product', pollInterval: 1 });
    assert.equal(out.status, 'completed', JSON.stringify(out));
    assert.deepEqual(merged(out.data as { related?: string[] }), {
      name: 'Steel kettle',
      price: 31,
      related: ['cups', 'mugs'],
    });
    assert.equal(out.creditsUsed, 2);
  });

  test('Python extract and get_extract_status, JS startExtract and getExtractStatus, a pattern refused by name', async () => {
    const py = async (method: string, args: unknown[], kwargs: Record<string, unknown>) => {
      const { stdout } = await run(
        path.join(ROOT, '.tools/firecrawl-py/bin/python'),
        [path.join(ROOT, 'e2e/src/firecrawl_v2.py'), fleet.gatewayUrl, key, JSON.stringify({ method, args, kwargs })],
        { timeout: 120_000 },
      );
      return JSON.parse(stdout) as {
        ok: boolean;
        result?: { status: string; data: { related?: string[] } };
        code?: string;
        error?: string;
      };
    };
    const out = await py('extract', [pages()], { schema: SCHEMA, poll_interval: 1 });
    assert.ok(out.ok && out.result, JSON.stringify(out));
    assert.equal(out.result.status, 'completed');
    assert.deepEqual(merged(out.result.data), { name: 'Steel kettle', price: 31, related: ['cups', 'mugs'] });
    // Started by one client, its status read by the other: the JS client's start and polls.
    const app = new Firecrawl({ apiKey: key, apiUrl: fleet.gatewayUrl });
    const started = await app.startExtract({ urls: pages(), schema: SCHEMA });
    assert.equal(typeof started.id, 'string');
    await until(
      'the extract completed',
      async () => (await app.getExtractStatus(started.id ?? '')).status === 'completed',
    );
    const status = await py('get_extract_status', [started.id], {});
    assert.ok(status.ok && status.result, JSON.stringify(status));
    assert.equal(status.result.status, 'completed');
    assert.deepEqual(merged(status.result.data), { name: 'Steel kettle', price: 31, related: ['cups', 'mugs'] });
    const refused = await py('start_extract', [[`${base}/*`]], { prompt: 'the products' });
    assert.equal(refused.ok, false);
    assert.equal(refused.code, 'bad_request');
    assert.match(refused.error ?? '', /urls\.0/);
  });
});
