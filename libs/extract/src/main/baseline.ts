import { descendants, removeAll, tagOf, trim } from '../dom.js';

const MIN_CONTENT = 100;
/** Substring checks against what came before stop here: they are quadratic in the text. */
export const DEDUPE_SCAN_CAP = 200_000;
const COOKIE_BANNER =
  /cookie[-_]?(?:banner|bar|consent|law|notice|policy|description)|notice[-_]{0,2}cookie|consent[-_]?(?:banner|manager|sdk)|borlabs|cookiebot|cmplz|onetrust|moove[-_]?gdpr/i;
const BASIC_REMOVED = new Set(['aside', 'footer', 'script', 'style', 'svg', 'template']);
const PARAGRAPHS = new Set(['blockquote', 'code', 'p', 'pre', 'q']);

/** Removes the few sections that are never content, for the last-resort extractors. */
export function basicClean(root: Element): void {
  removeAll(
    descendants(root).filter((e) => {
      const tag = tagOf(e);
      if (BASIC_REMOVED.has(tag)) return true;
      const cls = e.getAttribute('class') ?? '';
      const id = e.getAttribute('id') ?? '';
      return (
        (tag === 'div' && (cls.includes('footer') || id.includes('footer'))) ||
        COOKIE_BANNER.test(cls) ||
        COOKIE_BANNER.test(id)
      );
    }),
  );
}

/**
 * Last resort when the extractors found too little: schema.org text embedded as JSON-LD,
 * then the page's articles, then every paragraph, then all text. Returns paragraphs.
 */
export function baselineParagraphs(raw: Element): string[] {
  const fromJson = articleBodyParagraphs(raw.ownerDocument);
  if (fromJson.join('\n').length > MIN_CONTENT) return fromJson;
  const root = raw.cloneNode(true) as Element;
  basicClean(root);
  const articles = Array.from(root.querySelectorAll('article'))
    .filter((a) => !a.parentElement?.closest('article'))
    .map((a) => trim(a.textContent))
    .filter((text) => text.length > MIN_CONTENT);
  if (articles.length > 0) {
    const cutoff = Math.max(...articles.map((text) => text.length)) / 5;
    return articles.filter((text) => text.length >= cutoff);
  }
  const paragraphs = dedupe(
    descendants(root)
      .filter((e) => PARAGRAPHS.has(tagOf(e)))
      .map((e) => trim(e.textContent)),
  );
  if (paragraphs.join('\n').length > MIN_CONTENT) return paragraphs;
  const all = trim(root.textContent);
  return all ? [all] : [];
}

/** Drops empty paragraphs and long ones already contained in what came before (nested blocks). */
function dedupe(texts: string[]): string[] {
  const out: string[] = [];
  let seen = '';
  for (const text of texts) {
    if (!text || (text.length > 50 && seen.length < DEDUPE_SCAN_CAP && seen.includes(text))) continue;
    out.push(text);
    if (seen.length < DEDUPE_SCAN_CAP) seen += `\n${text}`;
  }
  return out;
}

const TEXT_KEYS = ['articleBody', 'reviewBody'];

/** The article text publishers state in schema.org JSON-LD (articleBody, reviewBody). */
export function articleBodyParagraphs(document: Document): string[] {
  return dedupe(jsonLdBodies(document));
}

function jsonLdBodies(document: Document): string[] {
  const bodies: string[] = [];
  for (const script of Array.from(document.querySelectorAll('script[type="application/ld+json"]'))) {
    const source = script.textContent ?? '';
    if (!/articleBody|reviewBody/.test(source)) continue;
    try {
      walkJson(JSON.parse(source), bodies, 0);
    } catch {
      // malformed JSON-LD is common; the other strategies follow
    }
  }
  return bodies.map((body) => trim(body.replace(/<[^>]+>/g, ' ')));
}

function walkJson(node: unknown, bodies: string[], depth: number): void {
  if (depth > 8 || node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const item of node) walkJson(item, bodies, depth + 1);
    return;
  }
  const record = node as Record<string, unknown>;
  for (const key of TEXT_KEYS) {
    const value = record[key];
    if (typeof value === 'string' && value) bodies.push(value);
  }
  walkJson(record['@graph'], bodies, depth + 1);
  walkJson(record.mainEntity, bodies, depth + 1);
}
