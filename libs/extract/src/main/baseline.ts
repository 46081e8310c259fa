import { collapsedLength, descendants, removeAll, tagOf, trim } from '../dom.js';
import { collectBlocks } from './collect.js';
import { isBoilerplate, isHiddenOrReply } from './patterns.js';
import { pruneMatching } from './prune.js';

const MIN_CONTENT = 100;
/** Below this many characters an extraction is taken as a miss and the next strategy runs. */
export const MIN_EXTRACTED = 250;
const PARAGRAPHS = new Set(['blockquote', 'code', 'p', 'pre', 'q']);
/** Substring checks against what came before stop here: they are quadratic in the text. */
export const DEDUPE_SCAN_CAP = 200_000;
const COOKIE_BANNER =
  /cookie[-_]?(?:banner|bar|consent|law|notice|policy|description)|notice[-_]{0,2}cookie|consent[-_]?(?:banner|manager|sdk)|borlabs|cookiebot|cmplz|onetrust|moove[-_]?gdpr/i;
/** Page chrome and machinery, never content even on a page with no article. */
const CHROME_TAGS = new Set([
  'aside',
  'button',
  'dialog',
  'footer',
  'form',
  'input',
  'menu',
  'nav',
  'noscript',
  'script',
  'select',
  'style',
  'svg',
  'template',
  'textarea',
]);
const CHROME_ROLES = new Set([
  'alertdialog',
  'banner',
  'complementary',
  'contentinfo',
  'dialog',
  'navigation',
  'search',
]);
/** Menus, breadcrumbs and share bars by class or id; header and footer only as a whole name. */
const CHROME_NAME =
  /(?:^|[\s_-])(?:nav|navbar|navigation|menu|breadcrumbs?|skip-link|share|sharing|social|cookies?|consent|gdpr)(?:$|[\s_-])|(?:^|\s)(?:site-|page-|global-)?(?:header|footer|masthead)(?:$|\s)/i;

/**
 * Removes the page's chrome for the last-resort extractors: navigation, the page's own header
 * and footer, sidebars, forms, dialogs, cookie banners and hidden blocks. Link lists and teasers
 * stay: on a page with no article they are what the page is about.
 */
export function basicClean(root: Element): void {
  const chrome: Element[] = [];
  const names = new Set<Element>();
  for (const element of descendants(root)) {
    const tag = tagOf(element);
    const role = element.getAttribute('role') ?? '';
    if (CHROME_TAGS.has(tag) || CHROME_ROLES.has(role) || isHidden(element)) chrome.push(element);
    // An article's or a section's own header holds its title.
    else if (tag === 'header' && !element.parentElement?.closest('article, main, section')) chrome.push(element);
    else {
      const cls = element.getAttribute('class') ?? '';
      const id = element.getAttribute('id') ?? '';
      if (COOKIE_BANNER.test(cls) || COOKIE_BANNER.test(id)) chrome.push(element);
      else if (tag !== 'main' && tag !== 'body' && (CHROME_NAME.test(cls) || CHROME_NAME.test(id))) names.add(element);
    }
  }
  removeAll(chrome);
  // Names are guesses: a page-wide wrapper called "menu" must not take the page with it.
  pruneMatching(root, (e) => names.has(e) || isBoilerplate(e) || isHiddenOrReply(e), true);
}

function isHidden(element: Element): boolean {
  return (
    element.hasAttribute('hidden') ||
    element.getAttribute('aria-hidden') === 'true' ||
    /display:\s*none|visibility:\s*hidden/.test(element.getAttribute('style') ?? '')
  );
}

/**
 * Last resort when the extractors found too little: schema.org text embedded as JSON-LD, then
 * the page's articles, then its main region (or body) without chrome, block by block. Returns
 * an element of the page's document holding the content, or undefined when there is none.
 */
export function baselineContent(raw: Element): Element | undefined {
  const document = raw.ownerDocument;
  const out = document.createElement('div');
  const fromJson = articleBodyParagraphs(document);
  if (fromJson.join('\n').length > MIN_CONTENT) return paragraphsOf(out, fromJson);
  const root = raw.cloneNode(true) as Element;
  basicClean(root);
  const articles = Array.from(root.querySelectorAll('article'))
    .filter((a) => !a.parentElement?.closest('article'))
    .map((a) => ({ article: a, length: collapsedLength(a.textContent) }))
    .filter(({ length }) => length > MIN_CONTENT);
  if (articles.length > 0) {
    const cutoff = Math.max(...articles.map(({ length }) => length)) / 5;
    for (const { article, length } of articles) if (length >= cutoff) out.appendChild(article);
    return out;
  }
  const region = mainRegion(root);
  const paragraphs = dedupe(
    descendants(region)
      .filter((e) => PARAGRAPHS.has(tagOf(e)))
      .map((e) => ({ element: e, text: trim(e.textContent) })),
  );
  // An article's worth of paragraphs reads as an article (trafilatura's baseline); a page with
  // less prose is read block by block, its headings, lists, tables and loose text included.
  if (paragraphs.reduce((sum, { text }) => sum + text.length + 1, 0) > MIN_EXTRACTED) {
    for (const { element } of paragraphs) out.appendChild(element.cloneNode(true));
  } else collectBlocks(region, out, { divMode: true });
  return out.firstChild ? out : undefined;
}

/** The page's <main> (or role=main) when it has one with text, else the whole cleaned page. */
function mainRegion(root: Element): Element {
  const main = root.querySelector('main, [role="main"]');
  return main && collapsedLength(main.textContent) > 0 ? main : root;
}

export function paragraphsOf(out: Element, paragraphs: string[]): Element {
  for (const text of paragraphs) {
    const p = out.ownerDocument.createElement('p');
    p.textContent = text;
    out.appendChild(p);
  }
  return out;
}

/** Drops empty paragraphs and long ones already contained in what came before (nested blocks). */
function dedupe<T extends { text: string }>(items: T[]): T[] {
  const out: T[] = [];
  let seen = '';
  for (const item of items) {
    const { text } = item;
    if (!text || (text.length > 50 && seen.length < DEDUPE_SCAN_CAP && seen.includes(text))) continue;
    out.push(item);
    if (seen.length < DEDUPE_SCAN_CAP) seen += `\n${text}`;
  }
  return out;
}

const TEXT_KEYS = ['articleBody', 'reviewBody'];

/** The article text publishers state in schema.org JSON-LD (articleBody, reviewBody). */
export function articleBodyParagraphs(document: Document): string[] {
  return dedupe(jsonLdBodies(document).map((text) => ({ text }))).map(({ text }) => text);
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
