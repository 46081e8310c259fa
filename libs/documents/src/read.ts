// One document read into the scrape formats, whatever its kind: the body of
// a document thread (worker.ts), and callable as is where a thread is not
// wanted (a test, a tool).
import { readCsv, readDocx, readXlsx } from './office.js';
import { PdfFailure, readPdf } from './pdf/read.js';
import { DEFAULT_LIMITS, type ParsedDocument, type ParseRequest, type UnrepresentableReason } from './types.js';
import { ZipRefusal } from './zip.js';

/** A document with no representation, and why (`document_unrepresentable`'s `details.reason`). */
export class DocumentRefusal extends Error {
  constructor(
    readonly reason: UnrepresentableReason,
    message: string,
  ) {
    super(message);
    this.name = 'DocumentRefusal';
  }
}

export async function readDocument(bytes: Uint8Array, request: ParseRequest): Promise<ParsedDocument> {
  const limits = { ...DEFAULT_LIMITS, ...request.limits };
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    switch (request.kind) {
      case 'pdf':
        // PDF.js refuses a Buffer: a plain view of the same bytes.
        return await readPdf(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
          url: request.url,
          maxPages: Math.min(limits.maxPages, request.maxPages ?? Number.POSITIVE_INFINITY),
        });
      case 'docx':
        return await readDocx(buf, request.url, limits);
      case 'xlsx':
        return await readXlsx(buf, limits);
      case 'csv':
        return readCsv(csvText(buf, request.contentType), limits);
    }
  } catch (err) {
    if (err instanceof PdfFailure || err instanceof ZipRefusal) throw new DocumentRefusal(err.reason, err.message);
    if (err instanceof DocumentRefusal) throw err;
    // What a library could not read is a document broken beyond what it repairs.
    throw new DocumentRefusal('malformed', `the ${request.kind} could not be read: ${(err as Error).message}`);
  }
}

/** A CSV's text: the charset its type names, else UTF-8 when it is, else Windows-1252 (what spreadsheets write). */
function csvText(buf: Buffer, contentType: string): string {
  const named = /charset\s*=\s*"?([\w-]+)/i.exec(contentType)?.[1];
  for (const label of [named, 'utf-8'])
    if (label)
      try {
        return new TextDecoder(label, { fatal: true }).decode(buf);
      } catch {
        // Not that charset (or not one TextDecoder knows): the next guess.
      }
  return new TextDecoder('windows-1252').decode(buf);
}
