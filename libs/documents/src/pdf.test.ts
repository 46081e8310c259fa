import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Printer, startPrinter } from './fixtures/index.js';
import { readDocument } from './read.js';
import type { ParseRequest } from './types.js';

let printer: Printer;
const request = (maxPages?: number): ParseRequest => ({
  kind: 'pdf',
  url: 'https://archive.example/reports/review.pdf',
  contentType: 'application/pdf',
  formats: ['markdown'],
  ...(maxPages !== undefined && { maxPages }),
});

const REVIEW = `<!doctype html><html lang="en"><head><title>Annual review</title>
<style>body{font-family:serif;font-size:12pt} td,th{border:1px solid #000;padding:5px} table{border-collapse:collapse}</style></head><body>
<h1>Annual review of the county archive</h1>
<p>The county archive holds records from the early modern period to the present day, and this paragraph is
long enough to wrap across three or four printed lines, so that a reader must join its lines back into one
paragraph before the sentence reads as it was written by its author.</p>
<h2>Collections</h2>
<ul><li>Parish registers from 1538</li><li>Quarter sessions rolls</li><li>Estate maps and surveys</li></ul>
<ol><li>First numbered step</li><li>Second numbered step</li></ol>
<h3>Visitors by year</h3>
<table><tr><th>Year</th><th>Visitors</th><th>Change</th></tr>
<tr><td>2021</td><td>1,204</td><td>+3%</td></tr><tr><td>2022</td><td>1,530</td><td>+27%</td></tr></table>
<p>See the <a href="https://archive.example/catalogue">archive catalogue</a> for the full list.</p>
<p><b>Opening hours</b></p>
<p>Tuesday to Saturday, from ten in the morning.</p>
</body></html>`;

describe('PDF', () => {
  before(async () => {
    printer = await startPrinter();
  });
  after(() => printer?.close());

  test('a page printed by Chromium reads back with its structure', async () => {
    const doc = await readDocument(await printer.print(REVIEW), request());
    const md = doc.markdown;
    assert.match(md, /^# Annual review of the county archive$/m);
    assert.match(md, /^## Collections$/m);
    assert.match(md, /^### Visitors by year$/m);
    assert.match(md, /^#{2,6} Opening hours$/m, 'a bold line on its own is a heading');
    // The wrapped paragraph is one paragraph again, its sentence whole.
    assert.match(
      md,
      /^The county archive holds records .* so that a reader must join its lines back into one paragraph before the sentence reads as it was written by its author\.$/m,
    );
    assert.match(md, /^- Parish registers from 1538\n- Quarter sessions rolls\n- Estate maps and surveys$/m);
    assert.match(md, /^1\. First numbered step\n2\. Second numbered step$/m);
    assert.match(
      md,
      /^\| Year \| Visitors \| Change \|\n\| --- \| --- \| --- \|\n\| 2021 \| 1,204 \| \+3% \|\n\| 2022 \| 1,530 \| \+27% \|$/m,
    );
    assert.match(md, /See the \[archive catalogue\]\(https:\/\/archive\.example\/catalogue\) for the full list\./);
    assert.deepEqual(doc.links, ['https://archive.example/catalogue']);
    assert.match(doc.html, /<h1>Annual review of the county archive<\/h1>/);
    assert.match(doc.html, /<table><thead><tr><th>Year<\/th><th>Visitors<\/th><th>Change<\/th><\/tr><\/thead>/);
    assert.ok(!/[#|]/.test(doc.text), 'the text has no markdown in it');
    assert.equal(doc.metadata.title, 'Annual review');
    assert.equal(doc.metadata.numPages, 1);
    assert.equal(doc.metadata.language, 'en');
    assert.match(String(doc.metadata.creationDate), /^\d{4}-\d{2}-\d{2}T/);
    assert.equal(doc.pages, 1);
    assert.equal(doc.metadata.ocr, undefined, 'a page with text needs no OCR');
  });

  test('maxPages reads the first pages only, and says how many there were', async () => {
    const pages = [1, 2, 3]
      .map((n) => `<h1>Chapter ${n}</h1><p>Text of chapter ${n}.</p>`)
      .join('<div style="break-after:page"></div>');
    const pdf = await printer.print(`<!doctype html><body>${pages}</body>`);
    const doc = await readDocument(pdf, request(2));
    assert.equal(doc.pages, 2);
    assert.equal(doc.metadata.numPages, 3);
    assert.equal(doc.metadata.parsedPages, 2);
    assert.match(doc.markdown, /Chapter 2/);
    assert.doesNotMatch(doc.markdown, /Chapter 3/);
    assert.deepEqual(doc.warnings, ['only the first 2 of 3 pages were read']);
    assert.equal((await readDocument(pdf, request())).pages, 3);
  });

  test('a page without a text layer is named in metadata (ocr: false), not passed over in silence', async () => {
    const scan = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300" fill="#ddd"/><circle cx="200" cy="150" r="80"/></svg>`;
    const pdf = await printer.print(
      `<!doctype html><body><p>Cover page with text.</p><div style="break-after:page"></div><img src="data:image/svg+xml,${encodeURIComponent(scan)}"></body>`,
    );
    const doc = await readDocument(pdf, request());
    assert.equal(doc.metadata.ocr, false);
    assert.deepEqual(doc.metadata.pagesWithoutText, [2]);
    assert.match(doc.warnings.join('\n'), /1 of 2 pages have no text layer/);
    assert.match(doc.markdown, /Cover page with text\./);
  });

  test('text set in two columns is read one column after the other', async () => {
    const left = 'Alpha column sentence about the mills of the valley and their owners. '.repeat(6);
    const right = 'Omega column sentence about the canal trade and its barges. '.repeat(6);
    const pdf = await printer.print(
      `<!doctype html><body style="font-size:12pt"><div style="column-count:2;column-gap:3em"><p>${left}</p><p>${right}</p></div></body>`,
    );
    const doc = await readDocument(pdf, request());
    const firstOmega = doc.text.indexOf('Omega');
    const lastAlpha = doc.text.lastIndexOf('Alpha');
    assert.ok(firstOmega > lastAlpha, `the right column follows the left one: ${doc.text.slice(0, 400)}`);
    assert.equal(doc.markdown.includes('|'), false, 'columns of prose are not a table');
  });
});
