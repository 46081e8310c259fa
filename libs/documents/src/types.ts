/** The documents this lib reads. */
export type DocumentKind = 'pdf' | 'docx' | 'xlsx' | 'csv';

/** Values a document's metadata holds: its title and author, its page count, dates as ISO strings. */
export type DocumentMetadata = Record<string, string | number | boolean | string[] | number[]>;

/** A document in the scrape formats, the shape `@wap/extract` answers for a page. */
export interface ParsedDocument {
  markdown: string;
  html: string;
  text: string;
  links: string[];
  metadata: DocumentMetadata;
  warnings: string[];
  /** What it bills: the PDF pages read, 1 for any other document. */
  pages: number;
}

/** Bounds on one document, whatever it claims about itself. */
export interface DocumentLimits {
  /** PDF pages read at most; the rest are left out, with a warning. */
  maxPages: number;
  /** What the entries of a DOCX or XLSX may unpack to, together. */
  maxUnpackedBytes: number;
  /** Spreadsheet cells read at most, over all sheets. */
  maxCells: number;
}

export const DEFAULT_LIMITS: DocumentLimits = {
  maxPages: 1_000,
  maxUnpackedBytes: 200 * 1024 * 1024,
  maxCells: 500_000,
};

export interface ParseRequest {
  kind: DocumentKind;
  /** Where it was fetched from: relative links resolve against it. */
  url: string;
  /** The Content-Type it came with, and the formats asked for: both are named in an error. */
  contentType: string;
  formats: string[];
  /** The caller's own cap on PDF pages (Firecrawl's `maxPages`), below the limits' own. */
  maxPages?: number;
  limits?: Partial<DocumentLimits>;
}

/** Why a document has no representation; `document_unrepresentable`'s `details.reason`. */
export type UnrepresentableReason = 'encrypted' | 'malformed' | 'too_large' | 'unsupported';
