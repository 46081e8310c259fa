import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { documentKind } from './detect.js';
import { docx, xlsx } from './fixtures/index.js';
import { readDocument } from './read.js';
import type { DocumentKind, ParseRequest } from './types.js';

const request = (kind: DocumentKind, contentType = ''): ParseRequest => ({
  kind,
  url: `https://archive.example/files/report.${kind}`,
  contentType,
  formats: ['markdown'],
});

describe('office documents', () => {
  test('a DOCX reads as its headings, paragraphs, links and tables, with its properties', async () => {
    const file = docx(
      [
        { heading: 1, text: 'Minutes of the board' },
        { text: 'The board met on Tuesday. ', link: { text: 'The agenda', href: 'https://archive.example/agenda' } },
        { heading: 2, text: 'Attendance' },
        {
          table: [
            ['Name', 'Role'],
            ['Ada', 'Chair'],
            ['Brook', 'Clerk'],
          ],
        },
      ],
      { title: 'Board minutes', author: 'The clerk' },
    );
    const doc = await readDocument(file, request('docx'));
    assert.match(doc.markdown, /^# Minutes of the board$/m);
    assert.match(doc.markdown, /^## Attendance$/m);
    assert.match(doc.markdown, /The board met on Tuesday\. \[The agenda\]\(https:\/\/archive\.example\/agenda\)/);
    assert.match(doc.markdown, /\| Name \| Role \|\n\| --- \| --- \|\n\| Ada \| Chair \|\n\| Brook \| Clerk \|/);
    assert.deepEqual(doc.links, ['https://archive.example/agenda']);
    assert.equal(doc.metadata.title, 'Board minutes');
    assert.equal(doc.metadata.author, 'The clerk');
    assert.equal(doc.metadata.creationDate, '2026-01-15T09:30:00.000Z');
    assert.equal(doc.pages, 1);
  });

  test('an XLSX is one markdown table per sheet, cells as they show', async () => {
    const file = await xlsx(
      {
        Visitors: [
          ['Year', 'Visitors', 'Opened'],
          [2021, 1204, new Date(Date.UTC(2021, 0, 4))],
          [2022, 1530, new Date(Date.UTC(2022, 0, 3))],
        ],
        Staff: [
          ['Name', 'Role | team'],
          ['Ada', 'Chair'],
        ],
      },
      'Archive figures',
    );
    const doc = await readDocument(file, request('xlsx'));
    assert.equal(
      doc.markdown,
      [
        '## Visitors',
        '| Year | Visitors | Opened |\n| --- | --- | --- |\n| 2021 | 1204 | 2021-01-04 |\n| 2022 | 1530 | 2022-01-03 |',
        '## Staff',
        '| Name | Role \\| team |\n| --- | --- |\n| Ada | Chair |',
      ].join('\n\n'),
    );
    assert.deepEqual(doc.metadata.sheets, ['Visitors', 'Staff']);
    assert.equal(doc.metadata.title, 'Archive figures');
    assert.match(doc.html, /<table><thead><tr><th>Year<\/th>/);
  });

  test('a CSV is one table, quoted fields and all', async () => {
    const csv = 'Name,Note\r\n"Smith, Ann","says ""hi"""\r\nBrook,plain\r\n\r\n';
    const doc = await readDocument(Buffer.from(csv), request('csv', 'text/csv'));
    assert.equal(doc.markdown, '| Name | Note |\n| --- | --- |\n| Smith, Ann | says "hi" |\n| Brook | plain |');
    assert.equal(doc.metadata.rows, 3);
  });

  test('the kind of a response: its type, its bytes, then its name', async () => {
    const pdf = Buffer.from('%PDF-1.7\n');
    const word = docx([{ text: 'x' }]);
    assert.equal(documentKind('application/pdf', 'https://a.example/x', pdf), 'pdf');
    assert.equal(documentKind('text/html', 'https://a.example/x', pdf), 'pdf', 'a PDF whatever its server says');
    assert.equal(documentKind('application/octet-stream', 'https://a.example/x', word), 'docx');
    assert.equal(documentKind('application/zip', 'https://a.example/x.docx', word), undefined);
    assert.equal(documentKind('text/csv; charset=utf-8', 'https://a.example/x', Buffer.from('a,b')), 'csv');
    assert.equal(documentKind('text/plain', 'https://a.example/data.csv', Buffer.from('a,b')), 'csv');
    assert.equal(documentKind('text/html', 'https://a.example/x.csv', Buffer.from('<p>')), undefined);
    assert.equal(documentKind('image/png', 'https://a.example/x.png', Buffer.from('\x89PNG')), undefined);
  });
});
