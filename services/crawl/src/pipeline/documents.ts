// The document step of the page pipeline: a fetched PDF, DOCX, XLSX or CSV is
// read on the document threads (@wap/documents) instead of being extracted as
// HTML; it is never rendered in a browser. `parsers: []` (parse_pdf false)
// returns a PDF's own bytes, base64, where a page's raw HTML goes.

import { type DocumentKind, type DocumentPool, documentKind } from '@wap/documents';
import { ApiError } from '@wap/errors';
import type { ExtractResult } from '@wap/extract';
import type { crawl } from '@wap/proto';

/** Types a document may come as: they get the document size cap instead of a page's. */
const DOCUMENT_TYPES =
  /^\s*(application\/(pdf|x-pdf|octet-stream|download|zip|csv|vnd\.openxmlformats-officedocument\.[\w.]+)|binary\/octet-stream|text\/(csv|comma-separated-values))\b/i;

/** The body cap for a Content-Type: documents may be up to `maxBytes`; a page keeps the fetch default. */
export const documentCap =
  (maxBytes: number | undefined) =>
  (contentType: string): number | undefined =>
    maxBytes !== undefined && (contentType.trim() === '' || DOCUMENT_TYPES.test(contentType)) ? maxBytes : undefined;

/** A fetched body that is a document, and its kind; undefined for a page. */
export function asDocument(contentType: string, url: string, bytes: Uint8Array): DocumentKind | undefined {
  return documentKind(contentType, url, bytes);
}

/** A document read: the extraction's shape, and the pages it bills. */
export type ReadDocument = ExtractResult & { pages: number; rawBase64?: boolean };

export interface DocumentRead {
  kind: DocumentKind;
  bytes: Uint8Array;
  url: string;
  contentType: string;
  /** The names of the formats asked for (named in a refusal). */
  formats: string[];
  options: crawl.ScrapeOptions;
  /** The caller's page budget for this document (a crawl's pages left), under the options' own. */
  maxPages?: number;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Reads a fetched document on the pool, or answers a PDF's bytes when the caller asked for them unread. */
export async function readFetched(pool: DocumentPool, read: DocumentRead): Promise<ReadDocument> {
  if (read.kind === 'pdf' && read.options.parsePdf === false)
    return {
      markdown: '',
      html: '',
      text: '',
      links: [],
      metadata: {},
      warnings: ['the PDF was not read (parsers: []): rawHtml holds its bytes, base64'],
      pages: 1,
      rawBase64: true,
    };
  if (read.timeoutMs <= 0) throw new ApiError('deadline_exceeded', { timeoutMs: read.options.timeoutMs });
  const caps = [read.options.maxPages, read.maxPages].filter((n): n is number => n !== undefined && n > 0);
  const doc = await pool.read(
    read.bytes,
    {
      kind: read.kind,
      url: read.url,
      contentType: read.contentType,
      formats: read.formats,
      ...(caps.length > 0 && { maxPages: Math.min(...caps) }),
    },
    { signal: read.signal, timeoutMs: read.timeoutMs },
  );
  return { ...doc, metadata: doc.metadata as ExtractResult['metadata'] };
}
