// The words of a scrape, with one home: how a page is fetched (engines) and
// what it is turned into (formats), each beside the crawl contract's enum.
import { crawl } from '@wap/proto';
import { protoNames } from './proto-names.js';

/** How a page is fetched: `auto` picks, `fetch` is plain HTTP, `browser` renders it. */
export const ENGINE_NAMES = ['auto', 'fetch', 'browser'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];
export const engines = protoNames<EngineName, crawl.Engine>(crawl.EngineSchema, ENGINE_NAMES);

/**
 * What a scrape answers, by the names Firecrawl's clients send (`rawHtml`, `screenshot@fullPage`): not the
 * enum's names lower-cased, so written out, in the contract's order.
 */
export const FORMATS = {
  markdown: crawl.Format.MARKDOWN,
  html: crawl.Format.HTML,
  rawHtml: crawl.Format.RAW_HTML,
  text: crawl.Format.TEXT,
  links: crawl.Format.LINKS,
  metadata: crawl.Format.METADATA,
  screenshot: crawl.Format.SCREENSHOT,
  'screenshot@fullPage': crawl.Format.SCREENSHOT_FULL_PAGE,
  json: crawl.Format.JSON,
  summary: crawl.Format.SUMMARY,
} as const satisfies Record<string, crawl.Format>;
export type FormatName = keyof typeof FORMATS;
export const FORMAT_NAMES = Object.keys(FORMATS) as FormatName[];

const FORMAT_BY_ENUM = new Map<crawl.Format, FormatName>(FORMAT_NAMES.map((name) => [FORMATS[name], name]));

/** The name of a format; undefined for UNSPECIFIED or a number this build does not know. */
export const formatName = (format: crawl.Format): FormatName | undefined => FORMAT_BY_ENUM.get(format);
