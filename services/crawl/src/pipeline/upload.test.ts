// An uploaded file read as the page pipeline reads a fetched body of its type: the document
// threads for office files and PDFs, the extractor for text, a refusal for anything else.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { DocumentPool } from '@wap/documents';
import { docx, encryptedPdf, xlsx } from '@wap/documents/fixtures';
import { isApiError } from '@wap/errors';
import { createFetchAgent } from '@wap/fetch';
import { AllowList } from '@wap/netguard';
import { crawl } from '@wap/proto';
import { toDocument } from './scrape.js';
import { loadUpload, uploadType } from './upload.js';

const documents = new DocumentPool({ threads: 1, memoryBytes: 256 * 1024 * 1024 });
const agent = createFetchAgent({ allow: AllowList.parse('') });
const deps = { agent, allow: AllowList.parse(''), documents };
after(async () => {
  await documents.close();
  await agent.close();
});

const options = create(crawl.ScrapeOptionsSchema, {
  formats: [crawl.Format.MARKDOWN, crawl.Format.LINKS],
  timeoutMs: 30_000,
});
const upload = (name: string, contentType: string, data: Buffer) =>
  create(crawl.UploadSchema, { name, contentType, data });
const read = async (name: string, contentType: string, data: Buffer) => {
  const { page, extracted } = await loadUpload(
    deps,
    upload(name, contentType, data),
    options,
    AbortSignal.timeout(30_000),
  );
  return toDocument(page, options, false, extracted);
};

test('a vague type gives way to the name’s extension; a precise one stays', () => {
  assert.equal(uploadType('page.html', 'application/octet-stream'), 'text/html');
  assert.equal(uploadType('notes.TXT', ''), 'text/plain');
  assert.equal(uploadType('page.html', 'application/pdf'), 'application/pdf');
  assert.equal(uploadType('blob', 'application/octet-stream'), 'application/octet-stream');
});

test('a DOCX sent as octet-stream is read by the document threads, as a fetched one is', async () => {
  const doc = await read(
    'minutes.docx',
    'application/octet-stream',
    docx([{ heading: 1, text: 'Minutes of the board' }, { text: 'The board met on Tuesday.' }], {
      title: 'Board minutes',
    }),
  );
  assert.match(doc.markdown, /^# Minutes of the board/m);
  assert.match(doc.markdown, /The board met on Tuesday\./);
  assert.equal(doc.metadata?.title, 'Board minutes');
  assert.equal(doc.engine, 'upload');
  assert.equal(doc.url, 'file:///minutes.docx');
});

test('an XLSX is one markdown table per sheet', async () => {
  const doc = await read(
    'figures.xlsx',
    '',
    await xlsx({
      Visitors: [
        ['Year', 'Visitors'],
        [2024, 1702],
      ],
    }),
  );
  assert.match(doc.markdown, /\| Year \| Visitors \|/);
  assert.match(doc.markdown, /\| 2024 \| 1702 \|/);
});

test('HTML is extracted as a page, its title and links with it', async () => {
  const html = '<title>Notes</title><h1>Notes</h1><p>See <a href="https://example.com/more">more</a>.</p>';
  const doc = await read('notes.html', 'application/octet-stream', Buffer.from(html));
  assert.match(doc.markdown, /^# Notes/m);
  assert.ok(doc.links.includes('https://example.com/more'), doc.links.join(' '));
  assert.equal(doc.metadata?.title, 'Notes');
});

test('bytes nothing here reads, and a PDF locked by a password, are document_unrepresentable', async () => {
  const refused = async (name: string, type: string, data: Buffer, reason: string) =>
    assert.rejects(read(name, type, data), (err) => {
      assert.ok(isApiError(err), String(err));
      assert.equal(err.code, 'document_unrepresentable');
      assert.equal(err.details?.reason, reason);
      return true;
    });
  await refused('photo.png', 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), 'unsupported');
  await refused('blob', 'application/octet-stream', Buffer.from([0, 1, 2, 3, 0, 255]), 'unsupported');
  await refused('locked.pdf', 'application/pdf', encryptedPdf(), 'encrypted');
});
