import { gunzip } from 'node:zlib';
import { ApiError } from '@wap/errors';
import { tooLarge } from './body.js';
import { type CharsetSource, decodeText, detectCharset, isTextual, mediaType } from './charset.js';
import { classify, unreachable } from './failure.js';
import { type RawResponse, type RequestOptions, request } from './request.js';

export type FetchOptions = RequestOptions;

export interface FetchedPage extends RawResponse {
  /** The media type alone, lower-cased (`text/html`); '' when the server sent none. */
  readonly mediaType: string;
  /** The decoded text, for text types (HTML, XML, JSON, plain text); undefined for binary bodies. */
  readonly body: string | undefined;
  /** The charset the body was decoded with, and what said so. */
  readonly charset: { readonly name: string; readonly source: CharsetSource } | undefined;
}

const PAGE_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/**
 * Fetches a page for scraping. Answers every HTTP status (a 404 page is a
 * page; the scrape decides); throws `page_unreachable` when no answer came,
 * `bad_request` for a URL that may never be fetched. Binary bodies come back
 * with `body` undefined: `requireText` turns that into `document_unrepresentable`.
 */
export async function fetchPage(url: string | URL, options: FetchOptions = {}): Promise<FetchedPage> {
  const raw = await request(url, options, PAGE_ACCEPT);
  const textual = isTextual(raw.contentType, raw.bytes);
  const detected = textual ? detectCharset(raw.bytes, raw.contentType) : undefined;
  return {
    ...raw,
    mediaType: mediaType(raw.contentType),
    body: detected ? decodeText(raw.bytes, detected.charset) : undefined,
    charset: detected ? { name: detected.charset, source: detected.source } : undefined,
  };
}

/** The page's text, or `document_unrepresentable` naming the formats that could not be produced. */
export function requireText(page: FetchedPage, formats: readonly string[]): string {
  if (page.body !== undefined) return page.body;
  const details = page.contentType
    ? { formats: [...formats], contentType: page.contentType }
    : { formats: [...formats] };
  throw new ApiError('document_unrepresentable', details);
}

export interface FetchedText {
  readonly finalUrl: string;
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  readonly redirects: RawResponse['redirects'];
}

const TEXT_ACCEPT = 'text/plain,application/xml,text/xml;q=0.9,*/*;q=0.5';

/**
 * Fetches robots.txt, a sitemap or a feed, with caps sized for them (1 MiB,
 * 10 s; a sitemap caller may raise them). A gzipped file (`sitemap.xml.gz`)
 * is unpacked under the same cap. Always text, whatever the type says.
 */
export async function fetchText(url: string | URL, options: FetchOptions = {}): Promise<FetchedText> {
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const raw = await request(url, { timeoutMs: 10_000, ...options, maxBytes }, TEXT_ACCEPT);
  let bytes = raw.bytes;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = await gunzipCapped(bytes, maxBytes, raw.finalUrl);
  const { charset } = detectCharset(bytes, raw.contentType);
  return {
    finalUrl: raw.finalUrl,
    status: raw.status,
    contentType: raw.contentType,
    text: decodeText(bytes, charset),
    redirects: raw.redirects,
  };
}

function gunzipCapped(bytes: Buffer, maxBytes: number, url: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    gunzip(bytes, { maxOutputLength: maxBytes }, (err, out) => {
      if (!err) return resolve(out);
      const failure = (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' ? tooLarge(maxBytes) : classify(err);
      reject(failure ? unreachable(url, failure) : err);
    });
  });
}
