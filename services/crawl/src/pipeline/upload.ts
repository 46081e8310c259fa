// A file the caller uploaded (POST /v1/parse), read as the page pipeline reads a fetched
// body: a PDF, DOCX, XLSX or CSV on the document threads (readDocumentPage), any text
// (HTML, plain text, XML) extracted as a page, anything else `document_unrepresentable`.
// Only the fetch is skipped: nothing is rendered, cached or kept.
import { ApiError } from '@wap/errors';
import { decodeText, detectCharset, isTextual } from '@wap/fetch';
import { formatName } from '@wap/plans';
import type { crawl } from '@wap/proto';
import { asDocument } from './documents.js';
import { analyseOff, formatsOf, type LoadedPage, type PipelineDeps, type RawPage, readDocumentPage } from './scrape.js';

/** The type a name's extension says, for a file sent without a useful one of its own. */
const BY_EXTENSION: Record<string, string> = {
  html: 'text/html',
  htm: 'text/html',
  xhtml: 'application/xhtml+xml',
  txt: 'text/plain',
  md: 'text/markdown',
  xml: 'application/xml',
  json: 'application/json',
};

/** Types that say nothing of what a file is (a client that did not know sends one). */
const VAGUE = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/download']);

/** The file's name as the URL its document and links are read against: `file:///report.pdf`. */
export const uploadUrl = (name: string) => `file:///${encodeURIComponent(name)}`;

/** The declared type, or the one its name's extension says when the declared one is vague. */
export function uploadType(name: string, declared: string): string {
  const type = (declared.split(';')[0] ?? '').trim().toLowerCase();
  if (!VAGUE.has(type)) return declared;
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? '';
  return BY_EXTENSION[extension] ?? type;
}

/** Reads an uploaded file into the formats the options ask, as a fetched body of that type would be. */
export async function loadUpload(
  deps: PipelineDeps,
  upload: crawl.Upload,
  options: crawl.ScrapeOptions,
  signal: AbortSignal,
): Promise<LoadedPage> {
  const deadline = Date.now() + (options.timeoutMs > 0 ? options.timeoutMs : 30_000);
  const url = uploadUrl(upload.name);
  const contentType = uploadType(upload.name, upload.contentType);
  const bytes = Buffer.from(upload.data.buffer, upload.data.byteOffset, upload.data.byteLength);
  const page: RawPage = { finalUrl: url, status: 200, html: '', contentType, engine: 'upload' };
  const kind = asDocument(contentType, url, bytes);
  if (kind) return readDocumentPage(deps, { ...page, document: { kind, bytes } }, options, signal, deadline);
  // A type that says binary, or none and bytes that are: nothing here reads it.
  if (!isTextual(VAGUE.has(contentType) && contentType !== '' ? '' : contentType, bytes) || bytes.length === 0)
    throw new ApiError('document_unrepresentable', {
      formats: formatsOf(options).map((f) => formatName(f) ?? 'unknown'),
      ...(contentType && { contentType }),
      reason: 'unsupported',
    });
  const text = { ...page, html: decodeText(bytes, detectCharset(bytes, contentType).charset) };
  return { page: text, extracted: await analyseOff(deps, text, options, false) };
}
