// Word and spreadsheet documents. A DOCX goes through mammoth, the well-kept
// DOCX-to-HTML converter, then through the same extraction as a web page
// (@wap/extract), so its markdown, text and links read like a page's. An XLSX
// (ExcelJS) and a CSV (Papa Parse) become one markdown table per sheet.
import { extract } from '@wap/extract';
import type ExcelJS from 'exceljs';
import mammoth from 'mammoth';
import Papa from 'papaparse';
import { type Block, render } from './blocks.js';
import type { DocumentLimits, DocumentMetadata, ParsedDocument } from './types.js';
import { checkZip, entryText, type ZipEntry, ZipRefusal } from './zip.js';

/** The Dublin Core fields of `docProps/core.xml`, which DOCX and XLSX share. */
function coreProperties(buf: Buffer, entries: ZipEntry[]): DocumentMetadata {
  const xml = entryText(buf, entries, 'docProps/core.xml') ?? '';
  const field = (tag: string) => {
    const m = new RegExp(`<${tag}(?:\\s[^>]*)?>([^<]*)</${tag}>`).exec(xml);
    return m?.[1]
      ?.replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&')
      .trim();
  };
  const out: DocumentMetadata = {};
  const date = (v: string | undefined) => (v && !Number.isNaN(Date.parse(v)) ? new Date(v).toISOString() : undefined);
  const fields: [string, string | undefined][] = [
    ['title', field('dc:title')],
    ['author', field('dc:creator')],
    ['subject', field('dc:subject')],
    ['keywords', field('cp:keywords')],
    ['description', field('dc:description')],
    ['lastModifiedBy', field('cp:lastModifiedBy')],
    ['creationDate', date(field('dcterms:created'))],
    ['modificationDate', date(field('dcterms:modified'))],
  ];
  for (const [k, v] of fields) if (v) out[k] = v;
  return out;
}

export async function readDocx(buf: Buffer, url: string, limits: DocumentLimits): Promise<ParsedDocument> {
  const entries = checkZip(buf, limits.maxUnpackedBytes);
  if (!entries.some((e) => e.name === 'word/document.xml'))
    throw new ZipRefusal('malformed', 'not a Word document (no word/document.xml)');
  const converted = await mammoth.convertToHtml(
    { buffer: buf },
    {
      // Images are left out (their alt text stays): a data: URL of each would swamp the text.
      convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
      externalFileAccess: false,
    },
  );
  // Word marks header rows only when they repeat on each page; a markdown table needs one: the first row.
  const body = converted.value.replace(
    /<table>(<tr>.*?<\/tr>)/g,
    (_m, row: string) => `<table><thead>${row.replace(/<(\/?)td>/g, '<$1th>')}</thead>`,
  );
  const metadata = coreProperties(buf, entries);
  const title = typeof metadata.title === 'string' ? metadata.title : '';
  const html = `<!doctype html><html><head><title>${title.replace(/</g, '&lt;')}</title></head><body><article>${body}</article></body></html>`;
  const page = extract(html, url, { onlyMainContent: false });
  return {
    markdown: page.markdown,
    html: page.html,
    text: page.text,
    links: page.links,
    metadata: { ...metadata, ...(title ? {} : page.metadata.title ? { title: page.metadata.title } : {}) },
    warnings: page.warnings,
    pages: 1,
  };
}

/** A cell as text: formulas by their result, dates as ISO dates, rich text and links by their text. */
function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  if (typeof value !== 'object') return String(value);
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('hyperlink' in value) return typeof value.text === 'string' ? value.text : cellText(value.text as never);
  if ('formula' in value || 'sharedFormula' in value) return cellText((value as { result?: ExcelJS.CellValue }).result);
  if ('error' in value) return String(value.error);
  return '';
}

/** Rows without their empty rows and their empty columns at the right. */
function trimRows(rows: string[][]): string[][] {
  const kept = rows.filter((r) => r.some((c) => c.trim()));
  const width = Math.max(0, ...kept.map((r) => r.reduce((w, c, i) => (c.trim() ? i + 1 : w), 0)));
  return kept.map((r) => Array.from({ length: width }, (_, i) => (r[i] ?? '').trim()));
}

export async function readXlsx(buf: Buffer, limits: DocumentLimits): Promise<ParsedDocument> {
  const entries = checkZip(buf, limits.maxUnpackedBytes);
  if (!entries.some((e) => e.name === 'xl/workbook.xml'))
    throw new ZipRefusal('malformed', 'not an Excel workbook (no xl/workbook.xml)');
  const { default: Excel } = await import('exceljs');
  const workbook = new Excel.Workbook();
  await workbook.xlsx.load(buf as never);
  const blocks: Block[] = [];
  const warnings: string[] = [];
  let cells = 0;
  const sheets: string[] = [];
  for (const sheet of workbook.worksheets) {
    sheets.push(sheet.name);
    const rows: string[][] = [];
    sheet.eachRow({ includeEmpty: false }, (row) => {
      if (cells >= limits.maxCells) return;
      const values: string[] = [];
      row.eachCell({ includeEmpty: true }, (cell, col) => {
        values[col - 1] = cellText(cell.value);
      });
      cells += values.length;
      rows[row.number - 1] = Array.from(values, (v) => v ?? '');
    });
    const table = trimRows(Array.from(rows, (r) => r ?? []));
    blocks.push({ kind: 'heading', level: 2, runs: [{ text: sheet.name }] });
    if (table.length > 0) blocks.push({ kind: 'table', rows: table });
  }
  if (cells >= limits.maxCells) warnings.push(`only the first ${limits.maxCells} cells were read`);
  const metadata: DocumentMetadata = { ...coreProperties(buf, entries), sheets };
  return { ...render(blocks), metadata, warnings, pages: 1 };
}

export function readCsv(text: string, limits: DocumentLimits): ParsedDocument {
  const warnings: string[] = [];
  const rows: string[][] = [];
  let cells = 0;
  Papa.parse<string[]>(text, {
    skipEmptyLines: 'greedy',
    step: (result, parser) => {
      rows.push(result.data.map((c) => String(c)));
      cells += result.data.length;
      if (cells >= limits.maxCells) parser.abort();
    },
  });
  if (cells >= limits.maxCells) warnings.push(`only the first ${limits.maxCells} cells were read`);
  const table = trimRows(rows);
  const blocks: Block[] = table.length > 0 ? [{ kind: 'table', rows: table }] : [];
  return { ...render(blocks), metadata: { rows: table.length }, warnings, pages: 1 };
}
