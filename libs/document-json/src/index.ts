// A scraped page (crawl.Document) as the API answers it: a scrape's `data`, a crawl's or a
// batch's pages, a search's rendered hits, a parse, and a crawl's `page` webhook events.
// One home, so the gateway's answers and the crawl service's webhook bodies never differ.
import { ERRORS, isErrorCode } from '@wap/errors';
import { type FormatName, formatName } from '@wap/plans';
import type { crawl } from '@wap/proto';

/** Format names of enum values; markdown when none (as the pipeline does). */
export function formatNames(formats: readonly crawl.Format[]): FormatName[] {
  const names = formats.flatMap((f) => formatName(f) ?? []);
  return names.length > 0 ? names : ['markdown'];
}

/** A model format's failure as the Error object docs/errors.md describes. */
function formatError(f: crawl.Document['formatFailures'][number]) {
  const message = isErrorCode(f.code) ? ERRORS[f.code].message : ERRORS.internal.message;
  return { code: f.code, message, details: f.details ?? {} };
}

/** The page with the formats asked (by name), its metadata always. */
export function documentJson(doc: crawl.Document | undefined, formats: Iterable<FormatName>) {
  const asked = new Set(formats);
  const failures = doc?.formatFailures ?? [];
  return {
    ...(asked.has('markdown') ? { markdown: doc?.markdown ?? '' } : {}),
    ...(asked.has('html') ? { html: doc?.html ?? '' } : {}),
    // A PDF left unread (`parsers: []`) answers its bytes here, asked for or not.
    ...(asked.has('rawHtml') || doc?.rawBase64 ? { rawHtml: doc?.rawHtml ?? '' } : {}),
    ...(asked.has('text') ? { text: doc?.text ?? '' } : {}),
    ...(asked.has('links') ? { links: doc?.links ?? [] } : {}),
    ...((asked.has('screenshot') || asked.has('screenshot@fullPage')) && doc?.screenshot.length
      ? { screenshot: `data:image/png;base64,${Buffer.from(doc.screenshot).toString('base64')}` }
      : {}),
    // The page's own URL, status and engine come whatever formats were asked: a crawl's pages need them.
    metadata: {
      ...(doc?.metadata ?? {}),
      url: doc?.url,
      statusCode: doc?.statusCode,
      engine: doc?.engine,
      cached: doc?.cached,
      ...(doc?.sessionId ? { sessionId: doc.sessionId } : {}),
    },
    ...(doc?.warnings.length ? { warnings: doc.warnings } : {}),
    ...(asked.has('json') && doc?.json ? { json: doc.json } : {}),
    ...(asked.has('summary') && doc?.summary ? { summary: doc.summary } : {}),
    ...(failures.length ? { errors: Object.fromEntries(failures.map((f) => [f.format, formatError(f)])) } : {}),
  };
}

export type DocumentJson = ReturnType<typeof documentJson>;
