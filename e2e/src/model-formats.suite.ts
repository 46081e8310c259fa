// POST /v1/scrape's model formats through the fleet (docs/api.md, "Model formats"): `json` with
// Firecrawl v1's jsonOptions and v2's object in `formats`, and `summary`, answered by the
// deployment's default model (the browsers fleet's scripted stand-in of an OpenAI-compatible
// endpoint, on loopback). The page bills one page load and its tokens at zero price; a field the
// page lacks comes back null; an answer outside the schema or a stalled model is extraction_failed
// beside the other formats, or, asked alone, the call's 422 with nothing billed; a model or schema
// no model can use is refused before the page is loaded. A crawl's pages and search's hits answer
// json too.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { until } from '@wap/testkit';
import { modelReply } from '@wap/testsite';
import { availableCredits, call } from './api.js';
import { fleet, scripted, sharedFleet } from './shared-fleet.js';

type Scraped = {
  success: boolean;
  data: {
    markdown?: string;
    json?: Record<string, unknown>;
    summary?: string;
    errors?: Record<string, { code: string; message: string; details: Record<string, unknown> }>;
    metadata: Record<string, unknown>;
  };
  usage: { credits: number; meters: Record<string, number> };
  code?: string;
  details?: { issues?: { path: string }[]; reason?: string };
};

const KETTLE = `<!doctype html><html><head><title>Steel kettle</title></head><body><main>
<h1>Steel kettle</h1><p>Our steel kettle boils 1.7 litres and costs 49.90 euros.</p>
<p>Ships in two days.</p></main></body></html>`;
const TEAPOT = `<!doctype html><html><head><title>Copper teapot</title></head><body><main>
<h1>Copper teapot</h1><p>A hammered copper teapot for 31 euros.</p></main></body></html>`;
const FILLER = Array.from(
  { length: 600 },
  (_, i) => `<p>Chapter ${i} of the long history of the company, its founders and their travels.</p>`,
).join('');
const LONG = `<!doctype html><html><head><title>Long page</title></head><body><main><h1>Long page</h1>${FILLER}
<p>The warranty lasts five years.</p>${FILLER}</main></body></html>`;

// A byline main-content extraction drops, a sidebar's labelled line, and the page's JSON-LD.
const STORY = `<!doctype html><html><head><title>Rivers of Porto</title><meta name="author" content="Ann Lee">
<script type="application/ld+json">{"@type":"NewsArticle","publisher":{"@type":"Organization","name":"River Press"}}</script>
</head><body><nav><a href="/">Home</a></nav><main><article><h1>Rivers of Porto</h1><p class="byline">By Jonas Berg</p>
<p>The rivers of Porto rise every spring as snow melts in the hills above the town.</p></article></main>
<aside class="sidebar"><p>Photographer: Mira Koch</p></aside></body></html>`;

const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'number' }, brand: { type: 'string' } },
  required: ['name', 'price'],
};

describe('scrape: json and summary from the model', () => {
  let site: Server;
  let base: string;
  let key: string;
  const served: string[] = [];
  const scrape = (body: Record<string, unknown>) =>
    call<Scraped>(fleet.gatewayUrl, 'POST', '/v1/scrape', { key, body });
  const prompts: string[] = [];

  before(async () => {
    site = createServer((req, res) => {
      served.push(req.url ?? '');
      const page = req.url === '/long' ? LONG : req.url === '/teapot' ? TEAPOT : req.url === '/story' ? STORY : KETTLE;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    });
    site.listen(0, '127.0.0.1');
    await once(site, 'listening');
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    await sharedFleet('browsers');
    ({ apiKey: key } = await fleet.workspace('pro'));
  });

  after(async () => {
    for (const path of ['/kettle', '/bad', '/stall', '/long', '/alone', '/teapot', '/story'])
      scripted?.pages.delete(`${base}${path}`);
    site?.close();
  });

  test('json with jsonOptions: the schema answered, a field the page lacks null, billed one page and its tokens', async () => {
    scripted.pages.set(`${base}/kettle`, (format, prompt) => {
      prompts.push(prompt);
      return format === 'summary'
        ? { summary: 'A steel kettle of 1.7 litres for 49.90 euros.' }
        : { name: 'Steel kettle', price: 49.9, brand: null };
    });
    const before = await availableCredits(fleet.gatewayUrl, key);
    const r = await scrape({ url: `${base}/kettle`, formats: ['json', 'markdown'], jsonOptions: { schema: SCHEMA } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data.json, { name: 'Steel kettle', price: 49.9, brand: null });
    assert.match(r.body.data.markdown ?? '', /49\.90 euros/);
    assert.equal(r.body.data.errors, undefined);
    assert.equal(r.body.usage.credits, 1);
    assert.equal(r.body.usage.meters.page_load, 1);
    assert.ok((r.body.usage.meters.tokens ?? 0) > 0, `tokens recorded: ${JSON.stringify(r.body.usage)}`);
    await until('the page billed', async () => (await availableCredits(fleet.gatewayUrl, key)) === before - 1, 10_000);
    assert.match(prompts[0] ?? '', /costs 49\.90 euros/, 'the model read the page');
  });

  test("v2's json object in formats, with summary: both answered", async () => {
    const r = await scrape({
      url: `${base}/kettle`,
      formats: [{ type: 'json', schema: SCHEMA, prompt: 'The product on sale' }, 'summary'],
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.json?.name, 'Steel kettle');
    assert.equal(r.body.data.summary, 'A steel kettle of 1.7 litres for 49.90 euros.');
    assert.equal(r.body.data.markdown, undefined, 'markdown was not asked');
    assert.ok(
      prompts.some((p) => p.includes('What to extract: The product on sale')),
      'the inline prompt reached the model',
    );
  });

  test('an answer outside the schema: extraction_failed in errors.json, the markdown still answered and billed', async () => {
    scripted.pages.set(`${base}/bad`, () => modelReply.text('{"name":"Steel kettle","price":"cheap","brand":null}'));
    const r = await scrape({ url: `${base}/bad`, formats: ['markdown', 'json'], jsonOptions: { schema: SCHEMA } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.match(r.body.data.markdown ?? '', /Steel kettle/);
    assert.equal(r.body.data.json, undefined);
    const error = r.body.data.errors?.json;
    assert.equal(error?.code, 'extraction_failed');
    assert.equal(error?.message, 'Structured data could not be extracted from the page.');
    assert.equal(error?.details.reason, 'schema');
    assert.deepEqual(
      ((error?.details.issues ?? []) as { path: string }[]).map((i) => i.path),
      ['price'],
    );
    assert.equal(r.body.usage.meters.page_load, 1);
  });

  test('json asked alone, not answered in time: 422 extraction_failed, reason timeout, nothing billed', async () => {
    scripted.pages.set(`${base}/stall`, () => modelReply.stall());
    const before = await availableCredits(fleet.gatewayUrl, key);
    const started = Date.now();
    const r = await scrape({ url: `${base}/stall`, formats: ['json'], jsonOptions: { prompt: 'the price' } });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, 'extraction_failed');
    assert.equal(r.body.details?.reason, 'timeout');
    assert.ok(Date.now() - started < 15_000, 'the fleet’s EXTRACT_TIMEOUT (4 s) ended it');
    // A page billed after it is the only change to the balance.
    const ok = await scrape({ url: `${base}/kettle`, formats: ['markdown'] });
    assert.equal(ok.status, 200);
    await until('one page billed', async () => (await availableCredits(fleet.gatewayUrl, key)) === before - 1, 10_000);
  });

  test('a long page goes to the model as its parts relevant to the schema, not cut at the top', async () => {
    let seen = '';
    scripted.pages.set(`${base}/long`, (_format, prompt) => {
      seen = prompt;
      return { warrantyYears: 5 };
    });
    const r = await scrape({
      url: `${base}/long`,
      formats: ['json'],
      jsonOptions: {
        schema: {
          type: 'object',
          properties: { warrantyYears: { type: 'integer', description: 'warranty in years' } },
        },
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data.json, { warrantyYears: 5 });
    assert.match(seen, /The warranty lasts five years\./, 'the paragraph past the middle of the page is there');
    assert.ok(seen.length < 8_000 * 4 + 2_000, `within the token budget (${seen.length} characters)`);
    assert.ok(seen.length < LONG.length / 2, 'not the whole page');
  });

  test('the model reads what the page states beside its main content: metadata, JSON-LD, a dropped byline', async () => {
    let seen = '';
    scripted.pages.set(`${base}/story`, (_format, prompt) => {
      seen = prompt;
      return { author: 'Jonas Berg' };
    });
    const r = await scrape({
      url: `${base}/story`,
      formats: ['json', 'markdown'],
      jsonOptions: { schema: { type: 'object', properties: { author: { type: 'string' } } } },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.doesNotMatch(r.body.data.markdown ?? '', /Jonas Berg/, 'the markdown keeps the main content alone');
    assert.deepEqual(r.body.data.json, { author: 'Jonas Berg' });
    for (const fact of [
      'author: Ann Lee',
      'NewsArticle.publisher.name: River Press',
      'By Jonas Berg',
      'Photographer: Mira Koch',
    ])
      assert.ok(seen.includes(fact), `${fact} reaches the model: ${seen}`);
    assert.ok(seen.indexOf('By Jonas Berg') < seen.indexOf('</page>'), 'inside the page, as data');
  });

  test('refused before the page is loaded: an unknown model, a schema that is no object, json with neither schema nor prompt', async () => {
    const loads = served.length;
    const refused = async (body: Record<string, unknown>, path: string) => {
      const r = await scrape({ url: `${base}/alone`, ...body });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.code, 'bad_request');
      assert.deepEqual(
        r.body.details?.issues?.map((i) => i.path),
        [path],
      );
    };
    await refused({ formats: ['json'], jsonOptions: { prompt: 'x' }, model: 'gpt-9' }, 'model');
    await refused({ formats: ['json'], jsonOptions: { schema: { type: 'string' } } }, 'jsonOptions.schema');
    await refused({ formats: ['json'] }, 'jsonOptions');
    await refused({ formats: [{ type: 'json', schema: SCHEMA, extra: 1 }] }, 'body.formats.0.extra');
    assert.equal(served.length, loads, 'no page was loaded');
  });

  test("each page of a crawl answers json, its tokens recorded; a crawl's model or schema is refused before it starts", async () => {
    const tokensSoFar = async () =>
      (await call<{ total: { meters: Record<string, number> } }>(fleet.gatewayUrl, 'GET', '/v1/usage', { key })).body
        .total.meters.tokens ?? 0;
    const tokensBefore = await tokensSoFar();
    const started = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/crawl', {
      key,
      body: {
        url: `${base}/kettle`,
        limit: 1,
        scrapeOptions: { formats: ['markdown', 'json'], jsonOptions: { schema: SCHEMA } },
      },
    });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    type Status = { crawl: { status: string }; data: Scraped['data'][] };
    let status: Status | undefined;
    await until('the crawl settled', async () => {
      status = (await call<Status>(fleet.gatewayUrl, 'GET', `/v1/crawl/${started.body.id}`, { key })).body;
      return status.crawl.status === 'settled';
    });
    assert.deepEqual(
      status?.data.map((page) => page.json),
      [{ name: 'Steel kettle', price: 49.9, brand: null }],
    );
    await until('the page’s tokens recorded', async () => (await tokensSoFar()) > tokensBefore, 10_000);
    const refused = await call<Scraped>(fleet.gatewayUrl, 'POST', '/v1/crawl', {
      key,
      body: { url: `${base}/kettle`, limit: 1, scrapeOptions: { formats: ['summary'], model: 'gpt-9' } },
    });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.deepEqual(
      refused.body.details?.issues?.map((i) => i.path),
      ['model'],
    );
  });

  test("search's rendered hits answer json, the tokens billed with them", async () => {
    // The built-in provider searches the workspace's own pages: a page of words no other has, scraped first.
    const url = `${base}/teapot`;
    scripted.pages.set(url, () => ({ name: 'Copper teapot', price: 31, brand: null }));
    assert.equal((await scrape({ url, formats: ['markdown'] })).status, 200);
    const r = await call<{ data: (Scraped['data'] & { url: string; error?: string })[]; usage: Scraped['usage'] }>(
      fleet.gatewayUrl,
      'POST',
      '/v1/search',
      {
        key,
        body: {
          query: 'copper teapot',
          limit: 1,
          scrapeOptions: { formats: ['json'], jsonOptions: { schema: SCHEMA } },
        },
      },
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data[0]?.url, url);
    assert.deepEqual(r.body.data[0]?.json, { name: 'Copper teapot', price: 31, brand: null });
    assert.equal(r.body.usage.meters.page_load, 1);
    assert.ok((r.body.usage.meters.tokens ?? 0) > 0, JSON.stringify(r.body.usage));
  });

  test("MCP's scrape tool declares the model formats and answers them, billed as on REST", async () => {
    const client = new McpClient({ name: 'e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${fleet.gatewayUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    try {
      // What an AI agent reads before it calls: the json format, its schema and the summary.
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === 'service_scrape_page');
      const declared = JSON.stringify(tool?.inputSchema ?? {});
      for (const word of ['"json"', '"summary"', '"jsonOptions"'])
        assert.ok(declared.includes(word), `the tool's input schema declares ${word}`);

      scripted.pages.set(`${base}/kettle`, (format) =>
        format === 'summary'
          ? { summary: 'A steel kettle of 1.7 litres for 49.90 euros.' }
          : { name: 'Steel kettle', price: 49.9, brand: null },
      );
      const before = await availableCredits(fleet.gatewayUrl, key);
      const result = await client.callTool({
        name: 'service_scrape_page',
        arguments: { url: `${base}/kettle`, formats: [{ type: 'json', schema: SCHEMA }, 'summary'] },
      });
      assert.notEqual(result.isError, true, JSON.stringify(result));
      const out = result.structuredContent as Scraped;
      assert.deepEqual(out.data.json, { name: 'Steel kettle', price: 49.9, brand: null });
      assert.equal(out.data.summary, 'A steel kettle of 1.7 litres for 49.90 euros.');
      assert.equal(out.usage.meters.page_load, 1);
      assert.ok((out.usage.meters.tokens ?? 0) > 0, JSON.stringify(out.usage));
      await until(
        'the page billed',
        async () => (await availableCredits(fleet.gatewayUrl, key)) === before - 1,
        10_000,
      );

      // An answer outside the schema, asked alone: the Error object, as on REST.
      scripted.pages.set(`${base}/bad`, () => modelReply.text('{"name":"Steel kettle","price":"cheap","brand":null}'));
      const stalled = await client.callTool({
        name: 'service_scrape_page',
        arguments: { url: `${base}/bad`, formats: ['json'], jsonOptions: { schema: SCHEMA } },
      });
      assert.equal(stalled.isError, true, JSON.stringify(stalled));
      const [text] = stalled.content as { type: string; text: string }[];
      assert.equal((JSON.parse(text?.text ?? '{}') as { code?: string }).code, 'extraction_failed');
    } finally {
      await client.close();
    }
  });
});
