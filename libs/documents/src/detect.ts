import type { DocumentKind } from './types.js';
import { zipEntries } from './zip.js';

const TYPES: Record<string, DocumentKind> = {
  'application/pdf': 'pdf',
  'application/x-pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/csv': 'csv',
  'application/csv': 'csv',
  'text/comma-separated-values': 'csv',
};

const EXTENSIONS: Record<string, DocumentKind> = { pdf: 'pdf', docx: 'docx', xlsx: 'xlsx', csv: 'csv' };

/** Types a server sends when it does not say what a file is: the file's name (or its bytes) decides then. */
const VAGUE = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/download', 'text/plain']);

const startsWith = (bytes: Uint8Array, magic: string) =>
  bytes.length >= magic.length && [...magic].every((ch, i) => bytes[i] === ch.charCodeAt(0));

/** `%PDF-` within the first KB, where readers look for it (some files start with junk). */
const isPdf = (bytes: Uint8Array) => Buffer.from(bytes.subarray(0, 1024)).includes('%PDF-');

/** Which office document a zip is, by the parts it holds. */
function officeKind(bytes: Uint8Array): DocumentKind | undefined {
  try {
    const names = new Set(zipEntries(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).map((e) => e.name));
    if (names.has('word/document.xml')) return 'docx';
    if (names.has('xl/workbook.xml')) return 'xlsx';
  } catch {
    // Not a zip this lib reads: not an office document either.
  }
  return undefined;
}

/**
 * The kind of document a response is, or undefined for a page (or a file no
 * reader here takes): its Content-Type, then its bytes, then its name. A PDF
 * is a PDF whatever its server calls it.
 */
export function documentKind(contentType: string, url: string, bytes: Uint8Array): DocumentKind | undefined {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (isPdf(bytes)) return 'pdf';
  const declared = TYPES[type];
  if (declared === 'docx' || declared === 'xlsx') return officeKind(bytes) ?? declared;
  if (declared) return declared;
  if (!VAGUE.has(type)) return undefined;
  let extension = '';
  try {
    extension = /\.([a-z0-9]+)$/i.exec(new URL(url).pathname)?.[1]?.toLowerCase() ?? '';
  } catch {
    // No usable name: the bytes alone decide.
  }
  if (startsWith(bytes, 'PK\u0003\u0004')) return officeKind(bytes);
  return EXTENSIONS[extension] === 'csv' ? 'csv' : undefined;
}
