import { create } from '@bufbuild/protobuf';
import type { LedgerClient } from '@wap/billing';
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
import { chooseEngine, looksScriptRendered } from '../domain/engine.js';
import { type SlotRequest, withBrowserSlot } from './browser-slots.js';

export type BrowserClient = ServiceClient<(typeof browser.BrowserService)['method']> & Closable;

const { Format } = crawl;

/** A page as fetched or rendered, before extraction: what the page cache keeps. */
export interface RawPage {
  finalUrl: string;
  status: number;
  html: string;
  contentType: string;
  engine: 'fetch' | 'browser';
  screenshot?: Uint8Array;
  /** Requests the page itself made that the egress guard refused (browser engine). */
  blocked?: string[];
  /** The browser session that recorded its render (browser engine, on a host that records): its replay. */
  sessionId?: string;
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
export function analyseOff(deps: PipelineDeps, page: RawPage, options: crawl.ScrapeOptions, withLinks: boolean) {
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
  });
  if (page.status >= 400) throw new ApiError('page_unreachable', { url, reason: 'http_status', status: page.status });
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
  if (rendered.status >= 400)
    throw new ApiError('page_unreachable', { url, reason: 'http_status', status: rendered.status });
  return {
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
  extracted: ExtractResult;
}

/**
 * Fetches (or renders) one page the way its options ask, and extracts it
 * once. `auto` renders only when the fetched page needs scripts, judged on
 * that same extraction, so a page that does not is parsed once, not twice.
 * `request`: what the page is loaded for; its render is recorded as a session of it.
 */
export async function loadPage(
  deps: PipelineDeps,
  url: string,
  options: crawl.ScrapeOptions,
  signal: AbortSignal,
  { withLinks = false, slot, request }: { withLinks?: boolean; slot?: SlotRequest; request?: PageRequest } = {},
): Promise<LoadedPage> {
  const target = checkUrl(url, { allow: deps.allow }).href;
  const choice = chooseEngine(options, deps.browser !== undefined);
  const rendered = async () => {
    const page = await viaBrowser(deps, target, options, signal, slot, request);
    return { page, extracted: await analyseOff(deps, page, options, withLinks) };
  };
  if (choice === 'browser') return rendered();
  const page = await viaFetch(deps, target, options, signal);
  const extracted = await analyseOff(deps, page, options, withLinks);
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

/** The requested formats of a loaded page, with its metadata always. */
export function toDocument(
  page: RawPage,
  options: crawl.ScrapeOptions,
  cached: boolean,
  extracted: ExtractResult = analyse(page, options),
): crawl.Document {
  const formats = new Set(formatsOf(options));
  const metadata = {
    ...extracted.metadata,
    sourceURL: page.finalUrl,
    url: page.finalUrl,
    statusCode: page.status,
    contentType: page.contentType,
  };
  return create(crawl.DocumentSchema, {
    url: page.finalUrl,
    markdown: formats.has(Format.MARKDOWN) ? extracted.markdown : '',
    html: formats.has(Format.HTML) ? extracted.html : '',
    rawHtml: formats.has(Format.RAW_HTML) ? page.html : '',
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
