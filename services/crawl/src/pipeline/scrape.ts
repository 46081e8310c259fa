import { create } from '@bufbuild/protobuf';
import type { LedgerClient } from '@wap/billing';
import { type DocumentKind, DocumentPool } from '@wap/documents';
import { ApiError } from '@wap/errors';
import {
  type Format as ExtractFormat,
  type ExtractOptions,
  type ExtractPool,
  type ExtractResult,
  extract,
} from '@wap/extract';
import { type FetchAgent, fetchPage, requireText } from '@wap/fetch';
import type { Logger } from '@wap/log';
import { type AllowList, checkUrl } from '@wap/netguard';
import { formatName } from '@wap/plans';
import { browser, crawl } from '@wap/proto';
import type { Closable, ServiceClient } from '@wap/rpc';
import { isModelFormat } from '../clients/model-formats.js';
import { chooseEngine, looksScriptRendered } from '../domain/engine.js';
import type { CachedPage, PageCache } from '../store/page-cache.js';
import { type SlotRequest, withBrowserSlot } from './browser-slots.js';
import { asDocument, documentCap, type ReadDocument, readFetched } from './documents.js';

export type BrowserClient = ServiceClient<(typeof browser.BrowserService)['method']> & Closable;

const { Format } = crawl;

/** A page as fetched or rendered (or a file uploaded), before extraction; the page cache keeps its `CachedPage` part. */
export interface RawPage extends CachedPage {
  screenshot?: Uint8Array;
  /** Requests the page itself made that the egress guard refused (browser engine). */
  blocked?: string[];
  /** The browser session that recorded its render (browser engine, on a host that records): its replay. */
  sessionId?: string;
  /** A document (PDF, DOCX, XLSX, CSV) rather than a page: its kind and bytes. Never cached. */
  document?: { kind: DocumentKind; bytes: Uint8Array };
  /** `html` holds the document's own bytes in base64 (a PDF asked with `parsers: []`). */
  rawBase64?: boolean;
  /** What the render did with the page's captchas (browser engine, when it showed one): `metadata.captcha`. */
  captcha?: CaptchaMetadata;
}

/** A page's captchas as its `metadata.captcha` tells them (docs/connect.md, "Captchas"). */
export interface CaptchaMetadata {
  found: string[];
  outcome: string;
  kind?: string;
  method?: string;
  durationMs: number;
  blocked: boolean;
  reason?: string;
}

function captchaMetadata(r: browser.CaptchaReport): CaptchaMetadata {
  return {
    found: r.found,
    outcome: r.outcome,
    ...(r.kind && { kind: r.kind }),
    ...(r.method && { method: r.method }),
    durationMs: r.durationMs,
    blocked: r.blocked,
    ...(r.reason && { reason: r.reason }),
  };
}

/**
 * The request a page is loaded for: a page rendered for it is recorded as a browser session of
 * kind `scrape` (docs/sessions.md, "Scrapes") that names it.
 */
export interface PageRequest {
  workspaceId: string;
  /** What its usage is listed under (GET /v1/usage/calls): a scrape's or search's request id, a crawl's id. */
  requestId: string;
}

export interface PipelineDeps {
  agent: FetchAgent;
  allow: AllowList;
  browser?: BrowserClient;
  /** Extraction threads; without them pages are extracted on the event loop. */
  extractor?: ExtractPool;
  /** The ledger that leases browser slots: a render asked with a `slot` holds one while it runs. */
  ledger?: LedgerClient;
  log?: Pick<Logger, 'warn'>;
  /** The document threads; without them, one shared thread of the defaults (tests, benches). */
  documents?: DocumentPool;
  /** The largest document fetched (bytes); pages keep the fetch lib's own cap. */
  documentMaxBytes?: number;
  /** The most pages of a PDF read, whatever the request asks. */
  documentMaxPages?: number;
  /** The page cache, the first engine of a load that names a copy it may take (`copy`). */
  cache?: Pick<PageCache, 'fresh'>;
}

export const DEFAULT_DOCUMENT_MAX_BYTES = 50 * 1024 * 1024;

let sharedDocuments: DocumentPool | undefined;
function documentsOf(deps: PipelineDeps): DocumentPool {
  if (deps.documents) return deps.documents;
  sharedDocuments ??= new DocumentPool({ threads: 1, memoryBytes: 512 * 1024 * 1024 });
  return sharedDocuments;
}

const EXTRACT_FORMATS: Partial<Record<crawl.Format, ExtractFormat>> = {
  [Format.MARKDOWN]: 'markdown',
  [Format.HTML]: 'html',
  [Format.TEXT]: 'text',
  [Format.LINKS]: 'links',
  [Format.METADATA]: 'metadata',
};

/** Markdown when nothing is asked, as Firecrawl does. */
export const formatsOf = (options: crawl.ScrapeOptions) =>
  options.formats.length > 0 ? options.formats : [Format.MARKDOWN];

/**
 * What to extract: the formats the options ask for, and always the text and
 * metadata (the search index and script detection need them); `withLinks`
 * adds the page's links whatever was asked (a crawl follows them).
 */
function extractOptions(options: crawl.ScrapeOptions, withLinks: boolean): ExtractOptions {
  const formats = formatsOf(options).flatMap((f) => EXTRACT_FORMATS[f] ?? []);
  const always: ExtractFormat[] = withLinks ? ['text', 'metadata', 'links'] : ['text', 'metadata'];
  // The model formats read the page's markdown.
  if (formatsOf(options).some(isModelFormat)) always.push('markdown');
  return {
    formats: [...new Set<ExtractFormat>([...formats, ...always])],
    onlyMainContent: options.onlyMainContent ?? true,
    includeTags: [...options.includeTags],
    excludeTags: [...options.excludeTags],
  };
}

/** Extracts a page on this thread (a stored copy, a test). */
export function analyse(page: RawPage, options: crawl.ScrapeOptions, withLinks = false): ExtractResult {
  return extract(page.html, page.finalUrl, extractOptions(options, withLinks));
}

/** Extracts a page on the service's extraction threads when it has them. */
export function analyseOff(
  deps: Pick<PipelineDeps, 'extractor'>,
  page: RawPage,
  options: crawl.ScrapeOptions,
  withLinks: boolean,
) {
  return deps.extractor
    ? deps.extractor.extract(page.html, page.finalUrl, extractOptions(options, withLinks))
    : Promise.resolve(analyse(page, options, withLinks));
}

async function viaFetch(
  deps: PipelineDeps,
  url: string,
  options: crawl.ScrapeOptions,
  signal: AbortSignal,
): Promise<RawPage> {
  const page = await fetchPage(url, {
    agent: deps.agent,
    signal,
    timeoutMs: options.timeoutMs > 0 ? options.timeoutMs : 30_000,
    headers: options.headers,
    mobile: options.mobile,
    maxBytesFor: documentCap(deps.documentMaxBytes ?? DEFAULT_DOCUMENT_MAX_BYTES),
  });
  if (page.status >= 400) throw new ApiError('page_unreachable', { url, reason: 'http_status', status: page.status });
  const kind = asDocument(page.contentType, page.finalUrl, page.bytes);
  if (kind)
    return {
      finalUrl: page.finalUrl,
      status: page.status,
      html: '',
      contentType: page.contentType,
      engine: 'fetch',
      document: { kind, bytes: page.bytes },
    };
  requireText(
    page,
    formatsOf(options).map((f) => formatName(f) ?? 'unknown'),
  );
  return {
    finalUrl: page.finalUrl,
    status: page.status,
    html: page.body ?? '',
    contentType: page.contentType ?? '',
    engine: 'fetch',
  };
}

async function viaBrowser(
  deps: PipelineDeps,
  url: string,
  options: crawl.ScrapeOptions,
  signal: AbortSignal,
  slot?: SlotRequest,
  request?: PageRequest,
): Promise<RawPage> {
  const client = deps.browser;
  if (!client) throw new ApiError('capability_unavailable', { capability: 'browser rendering' });
  const formats = formatsOf(options);
  const timeoutMs = options.timeoutMs > 0 ? options.timeoutMs : 30_000;
  const render = () =>
    client.render(
      create(browser.RenderRequestSchema, {
        url,
        // Scripts fill pages after `load`; a quiet network is the better sign the page is done.
        waitUntil: browser.WaitUntil.NETWORK_IDLE,
        waitMs: options.waitForMs,
        timeoutMs,
        headers: options.headers,
        mobile: options.mobile,
        actions: options.actions,
        screenshot: formats.includes(Format.SCREENSHOT) || formats.includes(Format.SCREENSHOT_FULL_PAGE),
        fullPageScreenshot: formats.includes(Format.SCREENSHOT_FULL_PAGE),
        workspaceId: request?.workspaceId ?? '',
        requestId: request?.requestId ?? '',
      }),
      { timeoutMs: timeoutMs + 5_000, signal },
    );
  // A render holds one of the workspace's browser slots while it runs (docs/crawl.md, "Browser slots").
  const rendered =
    slot && deps.ledger
      ? await withBrowserSlot(deps.ledger, slot, signal, deps.log ?? console, render)
      : await render();
  const captcha = rendered.captcha && captchaMetadata(rendered.captcha);
  // Still behind its captcha: what the site keeps there was never reached (docs/errors.md, page_unreachable).
  if (captcha?.blocked)
    throw new ApiError('page_unreachable', {
      url,
      reason: 'blocked',
      ...(rendered.status >= 400 && { status: rendered.status }),
      captcha: captcha.kind ?? captcha.found[0],
    });
  if (rendered.status >= 400)
    throw new ApiError('page_unreachable', { url, reason: 'http_status', status: rendered.status });
  return {
    ...(captcha && { captcha }),
    finalUrl: rendered.finalUrl,
    status: rendered.status,
    html: rendered.html,
    contentType: rendered.headers['content-type'] ?? 'text/html',
    engine: 'browser',
    screenshot: rendered.screenshot.length > 0 ? rendered.screenshot : undefined,
    blocked: rendered.blockedRequests,
    ...(rendered.sessionId && { sessionId: rendered.sessionId }),
  };
}

/** A loaded page and its extraction (formats asked, text and metadata, links when asked for). */
export interface LoadedPage {
  page: RawPage;
  /** A document's carries the pages it bills. */
  extracted: ExtractResult | ReadDocument;
  /** The page is the cache's copy: nothing was fetched. */
  cached?: true;
}

/** Which cached copy a load may take: the workspace's, under its key, no older than `maxAgeMs`. */
export interface CopyRequest {
  workspaceId: string;
  key: string;
  maxAgeMs: number;
}

const wantsScreenshot = (options: crawl.ScrapeOptions) =>
  formatsOf(options).some((f) => f === Format.SCREENSHOT || f === Format.SCREENSHOT_FULL_PAGE);

/** The cache as an engine: a fresh copy, extracted, or undefined for the next engine. Screenshots are not kept. */
async function fromCache(
  deps: PipelineDeps,
  copy: CopyRequest,
  options: crawl.ScrapeOptions,
  withLinks: boolean,
): Promise<LoadedPage | undefined> {
  if (!deps.cache || wantsScreenshot(options)) return undefined;
  const page = await deps.cache.fresh(copy.workspaceId, copy.key, copy.maxAgeMs);
  return page && { page, extracted: await analyseOff(deps, page, options, withLinks), cached: true };
}

/** Reads a fetched document within what is left of the page's time; a PDF asked unread keeps its bytes. */
export async function readDocumentPage(
  deps: PipelineDeps,
  page: RawPage & { document: NonNullable<RawPage['document']> },
  options: crawl.ScrapeOptions,
  signal: AbortSignal,
  deadline: number,
  maxPages?: () => Promise<number | undefined>,
): Promise<LoadedPage> {
  const extracted = await readFetched(documentsOf(deps), {
    ...page.document,
    url: page.finalUrl,
    contentType: page.contentType,
    formats: formatsOf(options).map((f) => formatName(f) ?? 'unknown'),
    options,
    maxPages: Math.min((await maxPages?.()) ?? Number.POSITIVE_INFINITY, deps.documentMaxPages ?? 1_000),
    timeoutMs: deadline - Date.now(),
    signal,
  });
  if (!extracted.rawBase64) return { page, extracted };
  return { page: { ...page, html: Buffer.from(page.document.bytes).toString('base64'), rawBase64: true }, extracted };
}

/**
 * Loads one page the way its options ask, and extracts it once. The engines
 * go in order, each answering or passing on: the page cache when `copy` names
 * a copy the load may take, then fetch or render. `auto` renders only when the
 * fetched page needs scripts, judged on that same extraction, so a page that
 * does not is parsed once, not twice. `request`: what the page is loaded for;
 * its render is recorded as a session of it.
 */
export async function loadPage(
  deps: PipelineDeps,
  url: string,
  options: crawl.ScrapeOptions,
  signal: AbortSignal,
  {
    withLinks = false,
    copy,
    slot,
    request,
    maxPages,
  }: {
    withLinks?: boolean;
    copy?: CopyRequest;
    slot?: SlotRequest;
    request?: PageRequest;
    /** The most pages a document may bill here (a crawl's pages left); asked only for a document. */
    maxPages?: () => Promise<number | undefined>;
  } = {},
): Promise<LoadedPage> {
  const cached = copy && (await fromCache(deps, copy, options, withLinks));
  if (cached) return cached;
  const target = checkUrl(url, { allow: deps.allow }).href;
  const deadline = Date.now() + (options.timeoutMs > 0 ? options.timeoutMs : 30_000);
  const choice = chooseEngine(options, deps.browser !== undefined);
  const fetched = async () => {
    const page = await viaFetch(deps, target, options, signal);
    if (page.document)
      return readDocumentPage(deps, { ...page, document: page.document }, options, signal, deadline, maxPages);
    return { page, extracted: await analyseOff(deps, page, options, withLinks) };
  };
  const rendered = async () => {
    const page = await viaBrowser(deps, target, options, signal, slot, request);
    // A browser shows a document in a viewer of its own: the document itself is fetched and read.
    if (asDocument(page.contentType, page.finalUrl, new Uint8Array())) return fetched();
    return { page, extracted: await analyseOff(deps, page, options, withLinks) };
  };
  if (choice === 'browser') return rendered();
  const { page, extracted } = await fetched();
  if (page.document) return { page, extracted };
  if (
    choice === 'fetch-then-decide' &&
    /html/i.test(page.contentType) &&
    looksScriptRendered(page.html, extracted.text)
  )
    return rendered();
  return { page, extracted };
}

/** The page's own requests the guard refused, said once each (at most 10). */
function refusedWarnings(blocked: readonly string[] = []): string[] {
  const unique = [...new Set(blocked)];
  const shown = unique.slice(0, 10).map((b) => `refused a request of the page to a private address: ${b}`);
  return unique.length > 10 ? [...shown, `and ${unique.length - 10} more refused requests`] : shown;
}

const rawOf = (page: RawPage) =>
  page.document && !page.rawBase64 ? Buffer.from(page.document.bytes).toString('base64') : page.html;

/**
 * The page loads a page bills, in a scrape and in a crawl alike (docs/billing.md, "Documents"): a
 * PDF the pages it read, anything else (a DOCX, a PDF left unread, a stored copy) one.
 */
export const pageLoads = (document: crawl.Document): bigint => BigInt(Math.max(1, document.pages));

/** The requested formats of a loaded page, with its metadata always. */
export function toDocument(
  page: RawPage,
  options: crawl.ScrapeOptions,
  cached: boolean,
  extracted: ExtractResult | ReadDocument = analyse(page, options),
): crawl.Document {
  const formats = new Set(formatsOf(options));
  const metadata = {
    ...extracted.metadata,
    sourceURL: page.finalUrl,
    url: page.finalUrl,
    statusCode: page.status,
    contentType: page.contentType,
    ...(page.captcha && { captcha: page.captcha }),
  };
  return create(crawl.DocumentSchema, {
    url: page.finalUrl,
    markdown: formats.has(Format.MARKDOWN) ? extracted.markdown : '',
    html: formats.has(Format.HTML) ? extracted.html : '',
    // A document's raw form is its own bytes, base64: when asked for, and always for a PDF left unread.
    rawHtml: page.rawBase64 || formats.has(Format.RAW_HTML) ? rawOf(page) : '',
    rawBase64: Boolean(page.rawBase64 || (page.document && formats.has(Format.RAW_HTML))),
    pages: 'pages' in extracted ? extracted.pages : 1,
    text: formats.has(Format.TEXT) ? extracted.text : '',
    links: formats.has(Format.LINKS) ? extracted.links : [],
    // Title, description, language and source URL come with every page, asked for or not (as Firecrawl's do).
    metadata: JSON.parse(JSON.stringify(metadata)) as never,
    screenshot: page.screenshot ?? new Uint8Array(),
    statusCode: page.status,
    engine: page.engine,
    cached,
    warnings: [...extracted.warnings, ...refusedWarnings(page.blocked)],
    // A stored copy keeps none: its answer used no browser.
    sessionId: page.sessionId ?? '',
  });
}
