import { create } from '@bufbuild/protobuf';
import { documentJson } from '@wap/document-json';
// The header rules alone: the fetch lib's index loads undici, which the gateway never fetches with.
import { HEADER_NAME, HEADER_VALUE, MAX_HEADER_NAME, MAX_HEADER_VALUE } from '@wap/fetch/headers';
import { HOST_NAME_TOO_LONG, hostNameFits } from '@wap/netguard';
import { ENGINE_NAMES, engines, FORMAT_NAMES, FORMATS, type FormatName } from '@wap/plans';
import { browser, crawl } from '@wap/proto';
import { z } from 'zod';
import { firecrawlBookkeeping } from '../bookkeeping.js';
import { capability } from '../types.js';
import { toUsageObject, usageObject } from '../usage-shape.js';

const action = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('wait'),
    milliseconds: z.number().int().min(0).max(60_000).optional(),
    selector: z.string().min(1).optional(),
  }),
  z.strictObject({ type: z.literal('click'), selector: z.string().min(1) }),
  z.strictObject({ type: z.literal('write'), text: z.string().max(10_000) }),
  z.strictObject({ type: z.literal('press'), key: z.string().min(1).max(40) }),
  z.strictObject({
    type: z.literal('scroll'),
    direction: z.enum(['up', 'down']).default('down'),
    selector: z.string().optional(),
  }),
]);

/** Scrape options, named as Firecrawl names them so code can switch without rewriting. */
/**
 * A page the caller asks us to fetch: http or https, and a host name DNS can carry,
 * so a name no lookup could take is the caller's bad_request here, not an engine's failure.
 */
export const pageUrl = (description: string) =>
  z
    .url({ protocol: /^https?$/ })
    .max(8_192)
    .refine((url) => !URL.canParse(url) || hostNameFits(new URL(url).hostname), HOST_NAME_TOO_LONG)
    .describe(description);

const MAX_PROMPT_CHARS = 10_000;
const jsonSchemaObject = z
  .record(z.string(), z.unknown())
  .describe(
    'A JSON Schema, `"type": "object"` at its root; each of its fields comes back null when the page does not hold it.',
  );
const prompt = (what: string) => z.string().min(1).max(MAX_PROMPT_CHARS).describe(what);

/** Firecrawl v2's form of the `json` format: `{ type: "json", schema, prompt }` inside `formats`. */
const jsonFormat = z.strictObject({
  type: z.literal('json'),
  schema: jsonSchemaObject.optional(),
  prompt: prompt('What to extract, in words.').optional(),
});

export const jsonOptions = z
  .strictObject({
    schema: jsonSchemaObject.optional(),
    prompt: prompt('What to extract, in words; with a schema, how to fill it.').optional(),
    systemPrompt: prompt(
      "Instructions added to the model's own (which answer null for what the page lacks).",
    ).optional(),
  })
  .describe("The `json` format's schema and prompt (Firecrawl v1's `jsonOptions`): a schema, a prompt, or both.");

export const scrapeOptions = z.strictObject({
  formats: z
    .array(z.union([z.enum(FORMAT_NAMES as [FormatName, ...FormatName[]]), jsonFormat]))
    .max(8)
    .default(['markdown'])
    .describe(
      'What to return. Default: markdown. `metadata` (title, description, language, source URL) comes with every page. `json` (with `jsonOptions`, or as `{ "type": "json", "schema", "prompt" }`) and `summary` are answered by a model over the page (docs/api.md, "Model formats").',
    ),
  jsonOptions: jsonOptions.optional(),
  model: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe(
      "The model of `json` and `summary`: `embedded` or a model endpoint of the deployment (as an agent run names it). Default: the deployment's default model.",
    ),
  onlyMainContent: z
    .boolean()
    .default(true)
    .describe('Keep only the main content, without navigation, footers and ads.'),
  includeTags: z
    .array(z.string().min(1).max(200))
    .max(50)
    .optional()
    .describe('CSS selectors to keep; everything else is dropped.'),
  excludeTags: z
    .array(z.string().min(1).max(200))
    .max(50)
    .optional()
    .describe('CSS selectors to remove before extraction.'),
  waitFor: z
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(0)
    .describe('Milliseconds to wait after loading (renders in a browser).'),
  timeout: z.number().int().min(1_000).max(120_000).default(30_000).describe('Milliseconds the whole page may take.'),
  headers: z
    .record(
      z.string().regex(HEADER_NAME, 'is not a valid header name').max(MAX_HEADER_NAME),
      z.string().regex(HEADER_VALUE, 'is not a valid header value (visible ASCII only)').max(MAX_HEADER_VALUE),
    )
    .refine((h) => Object.keys(h).length <= 50, 'at most 50 headers')
    .optional()
    .describe('Extra request headers (cookies, user agent...): names are HTTP tokens, values visible ASCII.'),
  mobile: z.boolean().default(false).describe('Fetch as a mobile device.'),
  actions: z.array(action).max(50).optional().describe('Steps run in a browser before capture.'),
  maxAge: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe('Serve this workspace’s stored copy if younger than this many milliseconds. 0 always fetches.'),
  engine: z.enum(ENGINE_NAMES).default('auto').describe('`auto` fetches and renders only pages that need scripts.'),
  parsers: z
    .array(
      z.union([
        z.literal('pdf'),
        z.strictObject({
          type: z.literal('pdf'),
          maxPages: z
            .number()
            .int()
            .min(1)
            .max(10_000)
            .optional()
            .describe('Read (and bill) at most this many pages of a PDF, the first ones.'),
        }),
      ]),
    )
    .max(1)
    .optional()
    .describe(
      'How documents are read, as Firecrawl has it. Default `["pdf"]`: a PDF is read into the formats, 1 credit per page read; `[{ "type": "pdf", "maxPages": 10 }]` reads at most 10 pages; `[]` leaves a PDF unread: `rawHtml` holds its bytes, base64 (1 credit). DOCX, XLSX and CSV are always read.',
    ),
  parsePDF: z
    .boolean()
    .optional()
    .describe("Firecrawl v1's name for `parsers`: `false` is `parsers: []`; `parsers` wins when both are sent."),
});

export type ScrapeOptionsInput = z.infer<typeof scrapeOptions>;

function toAction(a: z.infer<typeof action>): browser.Action {
  switch (a.type) {
    case 'wait':
      return create(browser.ActionSchema, {
        kind: { case: 'wait', value: { milliseconds: a.milliseconds ?? 0, selector: a.selector ?? '' } },
      });
    case 'click':
      return create(browser.ActionSchema, { kind: { case: 'click', value: { selector: a.selector } } });
    case 'write':
      return create(browser.ActionSchema, { kind: { case: 'write', value: { text: a.text } } });
    case 'press':
      return create(browser.ActionSchema, { kind: { case: 'press', value: { key: a.key } } });
    case 'scroll':
      return create(browser.ActionSchema, {
        kind: { case: 'scroll', value: { direction: a.direction, selector: a.selector ?? '' } },
      });
  }
}

/** `parsers` (or v1's `parsePDF`) as the pipeline takes it: whether a PDF is read, and its page cap. */
function pdfParsing(o: ScrapeOptionsInput): { parsePdf?: boolean; maxPages: number } {
  if (o.parsers === undefined) return { ...(o.parsePDF !== undefined && { parsePdf: o.parsePDF }), maxPages: 0 };
  const pdf = o.parsers[0];
  return { parsePdf: pdf !== undefined, maxPages: typeof pdf === 'object' ? (pdf.maxPages ?? 0) : 0 };
}

/** The names of the formats asked, whatever their form (a name, or v2's `{ type: "json" }` object). */
export const askedFormats = (formats: ScrapeOptionsInput['formats']): FormatName[] =>
  formats.map((f) => (typeof f === 'string' ? f : f.type));

/** `json`'s options: v1's `jsonOptions`, with v2's object in `formats` taking precedence field by field. */
function jsonOptionsOf(
  o: ScrapeOptionsInput,
): { schemaJson: string; prompt: string; systemPrompt: string } | undefined {
  if (!askedFormats(o.formats).includes('json')) return undefined;
  const inline = o.formats.find((f) => typeof f === 'object');
  const schema = inline?.schema ?? o.jsonOptions?.schema;
  return {
    schemaJson: schema ? JSON.stringify(schema) : '',
    prompt: inline?.prompt ?? o.jsonOptions?.prompt ?? '',
    systemPrompt: o.jsonOptions?.systemPrompt ?? '',
  };
}

export function toScrapeOptions(o: ScrapeOptionsInput): crawl.ScrapeOptions {
  const json = jsonOptionsOf(o);
  return create(crawl.ScrapeOptionsSchema, {
    ...pdfParsing(o),
    ...(json && { jsonOptions: json }),
    model: o.model ?? '',
    formats: [...new Set(askedFormats(o.formats))].map((f) => FORMATS[f]),
    onlyMainContent: o.onlyMainContent,
    includeTags: o.includeTags ?? [],
    excludeTags: o.excludeTags ?? [],
    waitForMs: o.waitFor,
    timeoutMs: o.timeout,
    headers: o.headers ?? {},
    mobile: o.mobile,
    maxAgeMs: BigInt(o.maxAge),
    engine: engines.toEnum(o.engine),
    actions: (o.actions ?? []).map(toAction),
  });
}

export const documentSchema = z.object({
  markdown: z.string().optional(),
  html: z.string().optional(),
  rawHtml: z.string().optional(),
  text: z.string().optional(),
  links: z.array(z.string()).optional(),
  screenshot: z.string().optional().describe('A data: URL of the PNG.'),
  metadata: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "The page's title, description, language and source URL, and always its `url`, `statusCode`, `engine` (`fetch` or `browser`) and `cached`. A page rendered in a browser also has `sessionId`: the browser session that recorded the render, whose replay and network log `GET /v1/sessions/{id}` links to (absent for a fetched page or a stored copy). A document (PDF, DOCX, XLSX, CSV) has its own: `contentType`, and as it says them `title`, `author`, `creationDate`, `modificationDate`; a PDF `numPages` and `parsedPages` (what it billed), and `ocr: false` with `pagesWithoutText` when pages have no text layer; a workbook its `sheets`.",
    ),
  warnings: z.array(z.string()).optional(),
  json: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("The `json` format: the page's data in the schema asked (null for what the page does not hold)."),
  summary: z.string().optional().describe('The `summary` format: a few sentences of what the page says.'),
  errors: z
    .record(z.string(), z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) }))
    .optional()
    .describe(
      'A model format asked but not answered, by its name: an Error object (`extraction_failed` with `details.reason`, or `decode_unavailable`). The other formats are still answered and the page billed.',
    ),
});

export const toDocumentJson = (doc: crawl.Document | undefined, formats: ScrapeOptionsInput['formats']) =>
  documentJson(doc, askedFormats(formats));

/** The longest the model formats may add to a scrape: EXTRACT_TIMEOUT's bound. */
export const MODEL_FORMATS_MS = 10 * 60_000;

/** Whether the options ask a model format (`json`, `summary`). */
export const usesModel = (o: ScrapeOptionsInput) =>
  askedFormats(o.formats).some((f) => f === 'json' || f === 'summary');

const body = scrapeOptions.extend({
  url: pageUrl('The page to scrape (http or https).'),
  ...firecrawlBookkeeping,
});

export const scrapeRow = capability({
  name: 'scrape',
  method: 'post',
  path: '/v1/scrape',
  tag: 'Scrape',
  summary: 'Scrape one page into clean content',
  description:
    'Fetches one known URL (rendering it in a browser when it needs scripts) and returns the requested formats. 1 credit per page; a page that cannot be fetched or represented is not billed.',
  openWorld: true,
  backend: 'crawl',
  bills: ['page_load'],
  mcpTool: 'service_scrape_page',
  request: { body },
  example: { url: 'https://example.com/blog/hello-world', formats: ['markdown', 'links'], onlyMainContent: true },
  response: z.object({ success: z.literal(true), data: documentSchema, usage: usageObject }),
  errors: [
    'page_unreachable',
    'document_unrepresentable',
    'extraction_failed',
    'quota_exceeded',
    'no_capacity',
    'decode_unavailable',
    'capability_unavailable',
  ],
  handler: async ({ principal, upstreams, operationId, requestId, signal }, { body: input }) => {
    const { url, origin: _origin, integration: _integration, ...options } = input;
    const out = await upstreams.crawl.scrape(
      {
        workspaceId: principal.workspaceId,
        requestId: operationId,
        reference: requestId,
        url,
        options: toScrapeOptions(options),
      },
      // The model formats have their own limit (the agent's EXTRACT_TIMEOUT, 10 minutes at most).
      { timeoutMs: options.timeout + 15_000 + (usesModel(options) ? MODEL_FORMATS_MS : 0), signal },
    );
    return {
      success: true as const,
      data: toDocumentJson(out.document, options.formats),
      usage: toUsageObject(out.usage),
    };
  },
});
