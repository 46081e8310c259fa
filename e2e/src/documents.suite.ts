// Documents through the gateway, as a Firecrawl user scrapes and crawls them: PDFs printed
// by Chromium, DOCX and XLSX written by their libraries, hostile documents made here, all
// served from a site on 127.0.0.2, the one loopback address the 'site' fleet lets out to.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  bombPdf,
  docx,
  encryptedPdf,
  garbagePdf,
  type Printer,
  scriptedPdf,
  startPrinter,
  xlsx,
} from '@wap/documents/fixtures';
import { until } from '@wap/testkit';
import { availableCredits, call } from './api.js';
import { reportHtml, serveFiles } from './document-site.js';
import { fleet, sharedFleet } from './shared-fleet.js';

type Answer = {
  data: {
    markdown?: string;
    rawHtml?: string;
    links?: string[];
    metadata: Record<string, unknown>;
    warnings?: string[];
  };
  usage: { credits: number; meters: Record<string, number> };
  code?: string;
  details?: Record<string, unknown>;
};

const PDF = 'application/pdf';
let key: string;
let site: Awaited<ReturnType<typeof serveFiles>>;
let base: string;
let printer: Printer;
let scriptHits = 0;
const files = new Map<string, { type: string; body: Buffer }>();

const scrape = (body: Record<string, unknown>) =>
  call<Answer>(fleet.gatewayUrl, 'POST', '/v1/scrape', { key, body, timeoutMs: 90_000 });
const credits = () => availableCredits(fleet.gatewayUrl, key);

const REPORT = reportHtml(3);

type CrawlStatus = {
  status: string;
  completed: number;
  creditsUsed: number;
  crawl: { failures: { url: string; code: string }[] };
  data: { markdown?: string; metadata: Record<string, unknown> }[];
};
const crawlStatus = async (apiKey: string, id: string) =>
  (await call<CrawlStatus>(fleet.gatewayUrl, 'GET', `/v1/crawl/${id}`, { key: apiKey })).body;

/** Starts a crawl and answers its status once it stopped running. */
async function crawlToEnd(apiKey: string, body: Record<string, unknown>): Promise<CrawlStatus & { id: string }> {
  const started = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/crawl', { key: apiKey, body });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const { id } = started.body;
  let status: CrawlStatus | undefined;
  await until(
    'the crawl stops running',
    async () => {
      status = await crawlStatus(apiKey, id);
      return status.status !== 'scraping';
    },
    60_000,
  );
  return { ...(status as CrawlStatus), id };
}

describe('documents: PDF, DOCX, XLSX and CSV', () => {
  before(async () => {
    printer = await startPrinter();
    files.set('/report.pdf', {
      type: PDF,
      body: await printer.print(`<!doctype html><title>The archive report</title><body>${REPORT}</body>`),
    });
    files.set('/minutes.docx', {
      type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      body: docx([{ heading: 1, text: 'Minutes of the board' }, { text: 'The board met on Tuesday.' }], {
        title: 'Board minutes',
        author: 'The clerk',
      }),
    });
    files.set('/figures.xlsx', {
      type: 'application/octet-stream',
      body: await xlsx({
        Visitors: [
          ['Year', 'Visitors'],
          [2024, 1702],
        ],
      }),
    });
    files.set('/list.csv', { type: 'text/csv', body: Buffer.from('Name,Role\nAda,Chair\n') });
    files.set('/encrypted.pdf', { type: PDF, body: encryptedPdf() });
    files.set('/garbage.pdf', { type: PDF, body: garbagePdf() });
    files.set('/bomb.pdf', { type: PDF, body: await bombPdf(2048) });
    files.set('/site/', {
      type: 'text/html',
      body: Buffer.from(
        '<!doctype html><title>Archive</title><main><h1>Archive</h1><p>Read the <a href="/report.pdf">report</a> and the <a href="/minutes.docx">minutes</a>.</p></main>',
      ),
    });
    site = await serveFiles(files, (req, res) => {
      const path = req.url ?? '';
      if (path === '/hit') {
        scriptHits++;
        res.end('ran');
        return true;
      }
      if (path === '/script.pdf') {
        res.writeHead(200, { 'content-type': PDF }).end(scriptedPdf(`${base}/hit`));
        return true;
      }
      if (path === '/huge.pdf') {
        // Says it is 2 GB: refused on its Content-Length, before any of it is read.
        res.writeHead(200, { 'content-type': PDF, 'content-length': String(2 * 1024 ** 3) });
        res.write(Buffer.from('%PDF-1.7\n'));
        return true;
      }
      if (path === '/endless.pdf') {
        // No length: the body is read up to the cap, then the download is dropped.
        res.writeHead(200, { 'content-type': PDF });
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) {}
          if (!res.destroyed) res.once('drain', pump);
        };
        res.write('%PDF-1.7\n');
        pump();
        return true;
      }
      return false;
    });
    base = site.base;
    await sharedFleet('site');
    ({ apiKey: key } = await fleet.workspace('pro'));
  });

  after(async () => {
    site?.close();
    await printer?.close();
  });

  test('a PDF reads as markdown with its metadata, billed one credit per page', async () => {
    const before = await credits();
    const r = await scrape({ url: `${base}/report.pdf`, formats: ['markdown', 'links'] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const md = r.body.data.markdown ?? '';
    for (const n of [1, 2, 3]) assert.match(md, new RegExp(`^# Chapter ${n} of the report$`, 'm'));
    assert.match(md, /^\| Year \| Visitors \|\n\| --- \| --- \|\n\| 2023 \| 1,610 \|\n\| 2024 \| 1,702 \|$/m);
    assert.match(md, /tells how the records were kept, in a paragraph long enough to wrap over several printed lines/);
    const meta = r.body.data.metadata;
    assert.equal(meta.title, 'The archive report');
    assert.equal(meta.numPages, 3);
    assert.equal(meta.parsedPages, 3);
    assert.equal(meta.contentType, PDF);
    assert.equal(meta.engine, 'fetch', 'a PDF is fetched, never rendered');
    assert.deepEqual(r.body.usage, { credits: 3, meters: { page_load: 3 } });
    await until('the credits show the 3 pages', async () => (await credits()) === before - 3, 10_000);
  });

  test('maxPages reads and bills the first pages only', async () => {
    const r = await scrape({ url: `${base}/report.pdf`, parsers: [{ type: 'pdf', maxPages: 2 }] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.match(r.body.data.markdown ?? '', /Chapter 2/);
    assert.doesNotMatch(r.body.data.markdown ?? '', /Chapter 3/);
    assert.equal(r.body.data.metadata.parsedPages, 2);
    assert.equal(r.body.data.metadata.numPages, 3);
    assert.deepEqual(r.body.usage, { credits: 2, meters: { page_load: 2 } });
  });

  test('parsers: [] answers the PDF itself, base64 in rawHtml, for one credit', async () => {
    for (const body of [{ parsers: [] }, { parsePDF: false }]) {
      const r = await scrape({ url: `${base}/report.pdf`, ...body });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(
        Buffer.from(r.body.data.rawHtml ?? '', 'base64'),
        files.get('/report.pdf')?.body,
        'the bytes as served',
      );
      assert.equal(r.body.data.metadata.contentType, PDF);
      assert.deepEqual(r.body.usage, { credits: 1, meters: { page_load: 1 } });
    }
  });

  test('a parser that is not pdf is a 400 naming it', async () => {
    const r = await scrape({ url: `${base}/report.pdf`, parsers: ['docx'] });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'bad_request');
    assert.match(JSON.stringify(r.body.details), /body\.parsers\.0/);
  });

  test('DOCX, XLSX and CSV read as markdown, one credit each', async () => {
    const word = await scrape({ url: `${base}/minutes.docx` });
    assert.equal(word.status, 200, JSON.stringify(word.body));
    assert.match(word.body.data.markdown ?? '', /^# Minutes of the board$/m);
    assert.equal(word.body.data.metadata.author, 'The clerk');
    assert.deepEqual(word.body.usage, { credits: 1, meters: { page_load: 1 } });
    const sheet = await scrape({ url: `${base}/figures.xlsx` });
    assert.equal(sheet.status, 200, JSON.stringify(sheet.body));
    assert.match(
      sheet.body.data.markdown ?? '',
      /## Visitors\n\n\| Year \| Visitors \|\n\| --- \| --- \|\n\| 2024 \| 1702 \|/,
    );
    const csv = await scrape({ url: `${base}/list.csv` });
    assert.equal(csv.status, 200, JSON.stringify(csv.body));
    assert.equal(csv.body.data.markdown, '| Name | Role |\n| --- | --- |\n| Ada | Chair |');
  });

  for (const [path, code, reason] of [
    ['/encrypted.pdf', 'document_unrepresentable', 'encrypted'],
    ['/garbage.pdf', 'document_unrepresentable', 'malformed'],
    ['/bomb.pdf', 'document_unrepresentable', 'too_large'],
    ['/huge.pdf', 'page_unreachable', 'too_large'],
    ['/endless.pdf', 'page_unreachable', 'too_large'],
  ] as const)
    test(`${path.slice(1)}: 422 ${code} (${reason}), not billed`, async () => {
      const before = await credits();
      const started = Date.now();
      const r = await scrape({ url: `${base}${path}` });
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, code);
      assert.equal(r.body.details?.reason, reason);
      assert.ok(Date.now() - started < 45_000, `answered in ${Date.now() - started} ms`);
      assert.equal(await credits(), before);
    });

  test('a PDF with JavaScript is read, and its script never runs', async () => {
    const r = await scrape({ url: `${base}/script.pdf` });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.match(r.body.data.markdown ?? '', /A form with a script/);
    assert.deepEqual(r.body.data.warnings, ['the document carries JavaScript; it was not run']);
    assert.equal(scriptHits, 0);
  });

  test('a crawl follows links to documents and delivers them like pages, a PDF billed by its pages', async () => {
    const before = await credits();
    const done = await crawlToEnd(key, { url: `${base}/site/`, limit: 10, sitemap: 'skip' });
    assert.equal(done.status, 'completed');
    const byUrl = new Map(done.data.map((d) => [String(d.metadata.url).replace(base, ''), d]));
    assert.deepEqual([...byUrl.keys()].sort(), ['/minutes.docx', '/report.pdf', '/site/']);
    assert.match(byUrl.get('/report.pdf')?.markdown ?? '', /^# Chapter 3 of the report$/m);
    assert.equal(byUrl.get('/report.pdf')?.metadata.numPages, 3);
    assert.match(byUrl.get('/minutes.docx')?.markdown ?? '', /^# Minutes of the board$/m);
    // limit counts documents (3 of 10); the bill counts pages: the page, the PDF's 3, the DOCX's 1.
    assert.equal(done.completed, 3);
    await until(
      'the crawl shows 5 credits used',
      async () => (await crawlStatus(key, done.id)).creditsUsed === 5,
      10_000,
    );
    await until(
      'the balance shows the 5 credits, the rest of the hold released',
      async () => (await credits()) === before - 5,
      10_000,
    );
  });

  test("a crawl's PDF its balance cannot pay fails quota_exceeded and charges nothing", async () => {
    const ws = `pdf-${Date.now()}`;
    await fleet.admin('workspace', 'create', ws, '--plan', 'free', '--allowance', '0');
    await fleet.admin('credits', 'grant', ws, '2', '--kind', 'promotional');
    const { apiKey } = await fleet.admin<{ apiKey: string }>('key', 'create', ws);
    // The crawl holds its one document (1 credit); the PDF's 2 further pages need 2 more, and 1 is left.
    const refused = await crawlToEnd(apiKey, { url: `${base}/report.pdf`, limit: 1, sitemap: 'skip' });
    assert.equal(refused.status, 'failed');
    assert.deepEqual(
      refused.crawl.failures.map((f) => [f.url.replace(base, ''), f.code]),
      [['/report.pdf', 'quota_exceeded']],
    );
    assert.equal(refused.creditsUsed, 0);
    await until(
      'the hold is released, nothing charged',
      async () => (await availableCredits(fleet.gatewayUrl, apiKey)) === 2,
      10_000,
    );
    // With 4 credits the same crawl holds 1, then 2 more, and bills the PDF's 3 pages.
    await fleet.admin('credits', 'grant', ws, '2', '--kind', 'promotional');
    await until('the grant shows', async () => (await availableCredits(fleet.gatewayUrl, apiKey)) === 4, 10_000);
    const paid = await crawlToEnd(apiKey, { url: `${base}/report.pdf`, limit: 1, sitemap: 'skip' });
    assert.equal(paid.status, 'completed');
    assert.equal(paid.data[0]?.metadata.numPages, 3);
    await until(
      'the crawl shows 3 credits used',
      async () => (await crawlStatus(apiKey, paid.id)).creditsUsed === 3,
      10_000,
    );
    await until('the balance shows them', async () => (await availableCredits(fleet.gatewayUrl, apiKey)) === 1, 10_000);
  });
});
