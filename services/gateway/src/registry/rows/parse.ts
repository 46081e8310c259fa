// A file the caller uploads, read into the formats a scrape answers (docs/api.md, "Parse"):
// the crawl service's Scrape with the file in place of a URL, so the same document pipeline,
// billing and errors as scraping a document's URL, without fetching anything.
import { create } from '@bufbuild/protobuf';
import { crawl } from '@wap/proto';
import { z } from 'zod';
import { firecrawlBookkeeping } from '../bookkeeping.js';
import { base64Length, capability, type FileUpload } from '../types.js';
import { toUsageObject, usageObject } from '../usage-shape.js';
import {
  askedFormats,
  documentSchema,
  MODEL_FORMATS_MS,
  scrapeOptions,
  toDocumentJson,
  toScrapeOptions,
  usesModel,
} from './scrape.js';

/** The largest file parsed: one message to the crawl service (its gRPC limit is 16 MiB). */
export const MAX_PARSE_BYTES = 10 * 1024 * 1024;

const upload: FileUpload = { field: 'file', most: 1, fileBytes: MAX_PARSE_BYTES, totalBytes: MAX_PARSE_BYTES };

/** What a file's reading cannot have: a browser's options, a stored copy, a screenshot. */
const body = scrapeOptions
  .omit({ waitFor: true, mobile: true, actions: true, maxAge: true, engine: true, headers: true })
  .extend({
    name: z
      .string()
      .min(1)
      .max(255)
      .describe('The file’s name, e.g. `report.pdf`: with a vague `mimeType`, its extension says what the file is.'),
    mimeType: z
      .string()
      .max(255)
      .optional()
      .describe(
        'Its media type. Default, or `application/octet-stream`: the name’s extension, then the bytes, decide.',
      ),
    data: z
      .base64()
      .min(1)
      .max(base64Length(MAX_PARSE_BYTES))
      .describe('Its bytes, base64; 10 MB (10,485,760 bytes) at most.'),
    ...firecrawlBookkeeping,
  })
  .superRefine((b, ctx) => {
    const formats = askedFormats(b.formats);
    const screenshot = formats.findIndex((f) => f.startsWith('screenshot'));
    if (screenshot >= 0)
      ctx.addIssue({ code: 'custom', path: ['formats', screenshot], message: 'a file has no screenshot' });
  });

export const parseRow = capability({
  name: 'parse',
  method: 'post',
  path: '/v1/parse',
  tag: 'Scrape',
  summary: 'Read an uploaded file into clean content',
  description:
    'Reads a file you send (PDF, DOCX, XLSX, CSV, HTML or any text) into the formats a scrape answers, as a scrape of that document’s URL would, without fetching anything: 10 MB at most. As JSON (the bytes base64 in `data`) or as multipart/form-data (the bytes in a part named `file`, its filename the name, its Content-Type the media type; the other fields as JSON in a part named `body`). Billed as a scrape: 1 credit per PDF page read, 1 for anything else; a file that cannot be read is not billed (`422 document_unrepresentable`).',
  backend: 'crawl',
  bills: ['page_load'],
  mcpTool: 'service_parse_file',
  request: { body },
  files: upload,
  example: {
    name: 'notes.html',
    mimeType: 'text/html',
    data: Buffer.from('<h1>Notes</h1><p>Hello.</p>').toString('base64'),
    formats: ['markdown'],
  },
  response: z.object({ success: z.literal(true), data: documentSchema, usage: usageObject }),
  errors: ['document_unrepresentable', 'extraction_failed', 'quota_exceeded', 'decode_unavailable'],
  handler: async ({ principal, upstreams, operationId, requestId, signal }, { body: input }) => {
    const { name, mimeType, data, origin: _o, integration: _i, ...options } = input;
    const all = { ...options, waitFor: 0, mobile: false, maxAge: 0, engine: 'fetch' as const };
    const out = await upstreams.crawl.scrape(
      {
        workspaceId: principal.workspaceId,
        requestId: operationId,
        reference: requestId,
        url: '',
        options: toScrapeOptions(all),
        upload: create(crawl.UploadSchema, {
          name,
          contentType: mimeType ?? '',
          data: Buffer.from(data, 'base64'),
        }),
      },
      { timeoutMs: options.timeout + 15_000 + (usesModel(all) ? MODEL_FORMATS_MS : 0), signal },
    );
    return {
      success: true as const,
      data: toDocumentJson(out.document, options.formats),
      usage: toUsageObject(out.usage),
    };
  },
});

/**
 * What POST /v1/parse reads, as the crawl service tells files apart (libs/documents' detect.ts,
 * the crawl's pipeline/upload.ts): by type, else by extension, else by bytes.
 */
export const PARSED_FORMATS = [
  { format: 'pdf', extensions: ['pdf'], mimeTypes: ['application/pdf'] },
  {
    format: 'docx',
    extensions: ['docx'],
    mimeTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  },
  {
    format: 'xlsx',
    extensions: ['xlsx'],
    mimeTypes: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  },
  { format: 'csv', extensions: ['csv'], mimeTypes: ['text/csv'] },
  { format: 'html', extensions: ['html', 'htm', 'xhtml'], mimeTypes: ['text/html', 'application/xhtml+xml'] },
  {
    format: 'text',
    extensions: ['txt', 'md', 'xml', 'json'],
    mimeTypes: ['text/plain', 'text/markdown', 'application/xml', 'application/json'],
  },
].map((f) => ({ ...f, kind: 'document' as const, available: true as const }));

export const parseFormatsRow = capability({
  name: 'parse.formats',
  method: 'get',
  path: '/v1/parse/formats',
  tag: 'Scrape',
  summary: 'The kinds of file parse reads',
  description:
    'Each kind of file `POST /v1/parse` reads: its name, the extensions and media types that say it is one (`text` stands for any text type, read as a page). Free.',
  backend: 'crawl',
  bills: [],
  mcpTool: 'service_parse_formats',
  request: {},
  response: z.object({
    success: z.literal(true),
    formats: z.array(
      z.object({
        format: z.string(),
        kind: z.literal('document'),
        extensions: z.array(z.string()),
        mimeTypes: z.array(z.string()),
        available: z.literal(true).describe('Always: every kind listed is read by this deployment.'),
      }),
    ),
  }),
  errors: [],
  handler: async () => ({ success: true as const, formats: PARSED_FORMATS }),
});
