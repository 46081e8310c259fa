// Parse: a file the caller uploads, read into a scrape's formats by the same document pipeline
// as a scrape of its URL (docs/api.md, "Parse"), natively (JSON and multipart) and through
// Firecrawl's v2 clients' `parse`. A PDF printed by Chromium and a DOCX written by its library
// are also served from a site on 127.0.0.2, so each upload is compared with the scrape of it.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { docx, type Printer, startPrinter } from '@wap/documents/fixtures';
import { availableCredits, call } from './api.js';
import { reportHtml, type ServedFile, serveFiles } from './document-site.js';
import { pyCall, pyOk } from './firecrawl-py.js';
import { fleet, sharedFleet } from './shared-fleet.js';

type Answer = {
  success?: boolean;
  data: { markdown?: string; html?: string; rawHtml?: string; metadata: Record<string, unknown> };
  usage: { credits: number };
  code?: string;
  details?: { issues?: { path: string }[]; reason?: string };
};

const PDF = 'application/pdf';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
let key: string;
let site: Awaited<ReturnType<typeof serveFiles>>;
let base: string;
let printer: Printer;
const files = new Map<string, ServedFile>();

const credits = () => availableCredits(fleet.gatewayUrl, key);

/** A multipart upload as a browser's FormData sends it: the file part, and the options as JSON. */
async function upload(
  route: string,
  file: { name: string; type?: string; body: Buffer },
  options?: Record<string, unknown>,
  bodyPart = 'body',
  apiKey = key,
) {
  const form = new FormData();
  if (options) form.append(bodyPart, JSON.stringify(options));
  form.append('file', new Blob([file.body], file.type ? { type: file.type } : {}), file.name);
  const res = await fetch(`${fleet.gatewayUrl}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: form,
    signal: AbortSignal.timeout(90_000),
  });
  return { status: res.status, body: (await res.json()) as Answer };
}

describe('parse: uploaded files through the document pipeline', () => {
  before(async () => {
    printer = await startPrinter();
    files.set('/report.pdf', {
      type: PDF,
      body: await printer.print(`<!doctype html><title>The archive report</title><body>${reportHtml(2)}</body>`),
    });
    files.set('/minutes.docx', {
      type: DOCX,
      body: docx([{ heading: 1, text: 'Minutes of the board' }, { text: 'The board met on Tuesday.' }], {
        title: 'Board minutes',
      }),
    });
    site = await serveFiles(files);
    base = site.base;
    await sharedFleet('site');
    ({ apiKey: key } = await fleet.workspace('pro'));
  });

  after(async () => {
    site?.close();
    await printer?.close();
  });

  test('an uploaded PDF answers what a scrape of its URL answers, billed the same: a credit a page', async () => {
    const pdf = files.get('/report.pdf')?.body ?? Buffer.alloc(0);
    const before = await credits();
    const parsed = await upload('/v1/parse', { name: 'report.pdf', type: PDF, body: pdf }, { formats: ['markdown'] });
    assert.equal(parsed.status, 200, JSON.stringify(parsed.body));
    const md = parsed.body.data.markdown ?? '';
    assert.match(md, /^# Chapter 1 of the report$/m);
    assert.match(md, /^# Chapter 2 of the report$/m);
    assert.equal(parsed.body.data.metadata.numPages, 2);
    assert.equal(parsed.body.data.metadata.title, 'The archive report');
    assert.equal(parsed.body.data.metadata.url, 'file:///report.pdf');
    assert.equal(parsed.body.usage.credits, 2);
    assert.equal(before - (await credits()), 2);

    const scraped = await call<Answer>(fleet.gatewayUrl, 'POST', '/v1/scrape', {
      key,
      body: { url: `${base}/report.pdf`, formats: ['markdown'] },
      timeoutMs: 90_000,
    });
    assert.equal(scraped.status, 200, JSON.stringify(scraped.body));
    assert.equal(md, scraped.body.data.markdown);
    assert.equal(parsed.body.usage.credits, scraped.body.usage.credits);
  });

  test('JSON with the bytes base64: a DOCX sent without a type is known by its name', async () => {
    const r = await call<Answer>(fleet.gatewayUrl, 'POST', '/v1/parse', {
      key,
      body: {
        name: 'minutes.docx',
        data: files.get('/minutes.docx')?.body.toString('base64'),
        formats: ['markdown', 'html'],
      },
      timeoutMs: 90_000,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.match(r.body.data.markdown ?? '', /^# Minutes of the board$/m);
    assert.match(r.body.data.html ?? '', /<h1>Minutes of the board<\/h1>/);
    assert.equal(r.body.data.metadata.title, 'Board minutes');
    assert.equal(r.body.usage.credits, 1);
  });

  test('a file nothing reads, one too large, or a screenshot asked are refused and not billed', async () => {
    const before = await credits();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
    const unknown = await upload('/v1/parse', { name: 'photo.png', type: 'image/png', body: png });
    assert.equal(unknown.status, 422, JSON.stringify(unknown.body));
    assert.equal(unknown.body.code, 'document_unrepresentable');
    assert.equal(unknown.body.details?.reason, 'unsupported');

    const huge = await upload('/v1/parse', { name: 'big.pdf', type: PDF, body: Buffer.alloc(10 * 1024 * 1024 + 1) });
    assert.equal(huge.status, 400, JSON.stringify(huge.body));
    assert.deepEqual(
      huge.body.details?.issues?.map((i) => i.path),
      ['body.file.data'],
    );

    const shot = await call<Answer>(fleet.gatewayUrl, 'POST', '/v1/parse', {
      key,
      body: { name: 'a.html', data: Buffer.from('<p>a</p>').toString('base64'), formats: ['markdown', 'screenshot'] },
    });
    assert.equal(shot.status, 400, JSON.stringify(shot.body));
    assert.deepEqual(
      shot.body.details?.issues?.map((i) => i.path),
      ['body.formats.1'],
    );

    const noFile = await call<Answer>(fleet.gatewayUrl, 'POST', '/v1/parse', { key, body: { formats: ['markdown'] } });
    assert.equal(noFile.status, 400, JSON.stringify(noFile.body));
    assert.equal(await credits(), before);
  });

  test('the largest file answers whole: 10 MB of HTML back as its rawHtml', async () => {
    const paragraph = `<p>${'The records were kept in the archive, one ledger a year. '.repeat(16)}</p>\n`;
    const html = `<title>Ledgers</title><h1>Ledgers</h1>${paragraph.repeat(Math.floor((10 * 1024 * 1024 - 100) / paragraph.length))}`;
    const r = await upload(
      '/v1/parse',
      { name: 'ledgers.html', type: 'text/html', body: Buffer.from(html) },
      { formats: ['rawHtml', 'markdown'], timeout: 120_000 },
    );
    assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 500));
    assert.equal(r.body.data.rawHtml?.length, html.length);
    assert.match(r.body.data.markdown ?? '', /^#+ Ledgers$/m);
  });

  test('through MCP: service_parse_file reads a DOCX sent base64, billed as on REST', async () => {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${fleet.gatewayUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    try {
      const result = await client.callTool({
        name: 'service_parse_file',
        arguments: { name: 'minutes.docx', data: files.get('/minutes.docx')?.body.toString('base64') },
      });
      assert.notEqual(result.isError, true, JSON.stringify(result));
      const out = result.structuredContent as Answer;
      assert.match(out.data.markdown ?? '', /^# Minutes of the board$/m);
      assert.equal(out.usage.credits, 1);
    } finally {
      await client.close();
    }
  });

  test('Firecrawl’s JS client: `parse` of a buffer, and its typed error for a file we cannot read', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const app = new Firecrawl({ apiKey, apiUrl: fleet.gatewayUrl });
    const doc = await app.parse(
      { data: files.get('/report.pdf')?.body ?? Buffer.alloc(0), filename: 'report.pdf', contentType: PDF },
      { formats: ['markdown'] },
    );
    assert.match(doc.markdown ?? '', /^# Chapter 2 of the report$/m);
    assert.equal(doc.metadata?.numPages, 2);
    // Their own HTML, sent as the client sends a string: text/plain, its name saying HTML.
    const html = await app.parse({ data: '<h1>Plain page</h1><p>Body text.</p>', filename: 'page.html' });
    assert.match(html.markdown ?? '', /^# Plain page$/m);
    const err = await app.parse({ data: Buffer.from([0, 1, 2, 0, 255]), filename: 'blob.bin' }).then(
      () => assert.fail('parsed bytes nothing reads'),
      (e: Error & { status?: number; code?: string }) => e,
    );
    assert.equal(err.status, 422);
    assert.equal(err.code, 'document_unrepresentable');
  });

  test('Firecrawl’s Python client: `parse` of a file path, with and without options, billed as our parse', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const file = path.join(tmpdir(), `minutes-${process.pid}.docx`);
    await writeFile(file, files.get('/minutes.docx')?.body ?? Buffer.alloc(0));
    const before = await availableCredits(fleet.gatewayUrl, apiKey);
    // Without options the client asks markdown, as Firecrawl answers by default.
    const doc = pyOk(await pyCall<{ markdown?: string }>(fleet.gatewayUrl, apiKey, 'parse', [file]));
    assert.match(doc.markdown ?? '', /^# Minutes of the board$/m);
    // With options it sends its defaults too (`mobile: false`, `skipTlsVerification`...).
    const both = pyOk(
      await pyCall<{ markdown?: string; html?: string }>(fleet.gatewayUrl, apiKey, 'parse', [file], {
        options: { formats: ['markdown', 'html'], only_main_content: false },
      }),
    );
    assert.match(both.html ?? '', /<h1>Minutes of the board<\/h1>/);
    assert.equal(before - (await availableCredits(fleet.gatewayUrl, apiKey)), 2);
    // What it reads, as the client lists it (GET /v2/parse/formats, our GET /v1/parse/formats).
    const kinds = pyOk(
      await pyCall<{ format: string; extensions: string[] }[]>(fleet.gatewayUrl, apiKey, 'get_parse_formats', []),
    );
    assert.deepEqual(
      kinds.map((k) => k.format),
      ['pdf', 'docx', 'xlsx', 'csv', 'html', 'text'],
    );
    assert.ok(kinds.find((k) => k.format === 'docx')?.extensions.includes('docx'));
  });
});
