import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { isApiError } from '@wap/errors';
import {
  bombPdf,
  brokenXref,
  docx,
  encryptedPdf,
  garbagePdf,
  type Printer,
  scriptedPdf,
  startPrinter,
  zip,
} from './fixtures/index.js';
import { DocumentPool } from './pool.js';
import type { ParseRequest } from './types.js';

const MB = 1024 * 1024;
let printer: Printer;
let pool: DocumentPool;
let bomb: Buffer;
const pdf = (maxPages?: number): ParseRequest => ({
  kind: 'pdf',
  url: 'https://archive.example/a.pdf',
  contentType: 'application/pdf',
  formats: ['markdown'],
  ...(maxPages && { maxPages }),
});
const word: ParseRequest = {
  kind: 'docx',
  url: 'https://archive.example/a.docx',
  contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  formats: ['markdown'],
};

/** The refusal's reason, asserting it is document_unrepresentable naming what was asked. */
async function refusal(promise: Promise<unknown>, request: ParseRequest): Promise<string> {
  try {
    await promise;
  } catch (err) {
    assert.ok(isApiError(err), String(err));
    assert.equal(err.code, 'document_unrepresentable');
    assert.deepEqual(err.details?.formats, request.formats);
    assert.equal(err.details?.contentType, request.contentType);
    return String(err.details?.reason);
  }
  assert.fail('the document was read');
}

describe('document threads', () => {
  before(async () => {
    printer = await startPrinter();
    pool = new DocumentPool({ threads: 1, memoryBytes: 256 * MB });
    await pool.warm();
    bomb = await bombPdf(2048);
  });
  after(async () => {
    await printer?.close();
    await pool?.close();
  });

  const ok = async () => {
    const doc = await pool.read(await printer.print('<h1>Still reading</h1><p>After the refusal.</p>'), pdf(), {
      timeoutMs: 20_000,
    });
    assert.match(doc.markdown, /# Still reading/);
  };

  test('a password-protected PDF is refused as encrypted', async () => {
    assert.equal(await refusal(pool.read(encryptedPdf(), pdf(), { timeoutMs: 10_000 }), pdf()), 'encrypted');
  });

  test('a file that is no PDF past its header is refused as malformed', async () => {
    assert.equal(await refusal(pool.read(garbagePdf(), pdf(), { timeoutMs: 10_000 }), pdf()), 'malformed');
  });

  test('a PDF whose cross-reference table points nowhere is rebuilt and read', async () => {
    const broken = brokenXref(await printer.print('<h1>Minutes</h1><p>The board met on Tuesday.</p>'));
    const doc = await pool.read(broken, pdf(), { timeoutMs: 10_000 });
    assert.match(doc.markdown, /The board met on Tuesday\./);
  });

  test('a PDF with JavaScript is read and its script never runs', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.end('ran');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ran`;
      const doc = await pool.read(scriptedPdf(url), pdf(), { timeoutMs: 10_000 });
      assert.match(doc.markdown, /A form with a script/);
      assert.equal(doc.metadata.javascript, true);
      assert.deepEqual(doc.warnings, ['the document carries JavaScript; it was not run']);
      assert.equal(hits, 0, 'nothing called the URL the script names');
    } finally {
      server.close();
    }
  });

  test('a decompression bomb is stopped at the memory budget, and the next document is read', async () => {
    assert.ok(bomb.length < 100 * 1024, `a small file: ${bomb.length} bytes`);
    const started = Date.now();
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sample = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    try {
      assert.equal(await refusal(pool.read(bomb, pdf(), { timeoutMs: 60_000 }), pdf()), 'too_large');
    } finally {
      clearInterval(sample);
    }
    assert.ok(Date.now() - started < 30_000, `stopped in ${Date.now() - started} ms`);
    assert.ok(peak - rssBefore < 1024 * MB, `memory grew by ${Math.round((peak - rssBefore) / MB)} MB at most`);
    await ok();
  });

  test('a document past its time budget is deadline_exceeded, and the thread is replaced', async () => {
    const long = await printer.print(
      Array.from({ length: 60 }, (_, i) => `<h2>Part ${i}</h2><p>${'Words of the part. '.repeat(80)}</p>`).join(''),
    );
    await assert.rejects(pool.read(long, pdf(), { timeoutMs: 5 }), (err) => {
      assert.ok(isApiError(err));
      assert.equal(err.code, 'deadline_exceeded');
      assert.deepEqual(err.details, { timeoutMs: 5 });
      return true;
    });
    await ok();
  });

  test('a caller that gives up stops the reading', async () => {
    const controller = new AbortController();
    const reading = pool.read(bomb, pdf(), { timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller left')), 50);
    await assert.rejects(reading, /caller left/);
    await ok();
  });

  test('a DOCX whose entry unpacks past what it declares is refused before mammoth reads it', async () => {
    const lying = docx([{ text: 'x'.repeat(20 * MB) }], { declaredDocumentSize: 2_000 });
    assert.ok(lying.length < 1 * MB);
    assert.equal(await refusal(pool.read(lying, word, { timeoutMs: 10_000 }), word), 'too_large');
  });

  test('a DOCX that honestly unpacks past the limit is refused without unpacking it', async () => {
    const big = docx([{ text: 'A short letter.' }], {
      extra: [{ name: 'word/media/padding.bin', data: Buffer.alloc(300 * MB) }],
    });
    assert.equal(await refusal(pool.read(big, word, { timeoutMs: 10_000 }), word), 'too_large');
  });

  test('a zip that is no Word document is malformed', async () => {
    const other = zip([{ name: 'hello.txt', data: Buffer.from('hello') }]);
    assert.equal(await refusal(pool.read(other, word, { timeoutMs: 10_000 }), word), 'malformed');
  });
});
