import {
  boundInput,
  isOversized,
  linearParagraphs,
  MAX_SOURCE_DEPTH,
  sourceDepth,
  textWithoutParsing,
} from './bounds.js';
import { cleanWholePage } from './clean.js';
import { contentRoot, descendants, parseDocument, remove, spaceAdjacentLinks } from './dom.js';
import { collectLinks } from './links.js';
import { extractMainContent, type MainStage } from './main/extract.js';
import { extractMetadata } from './metadata.js';
import { cleanCopy } from './render/html.js';
import { normaliseCodeBlocks, renderMarkdown } from './render/markdown.js';
import { renderText } from './render/text.js';
import type { ExtractOptions, ExtractResult, Format } from './types.js';
import { absolutizeTree, baseUrlOf } from './urls.js';

const DEFAULT_BUDGET_MS = 5000;
const ALL_FORMATS: Format[] = ['markdown', 'html', 'text', 'links', 'metadata'];

/** How the content was obtained: the main-content strategy, the whole page, or the linear fallback. */
export type ContentSource = MainStage | 'whole-page' | 'selected' | 'linear' | 'failed';

/**
 * Turns one fetched HTML document into the scrape formats. Pure and synchronous; never throws:
 * junk input yields empty formats. `url` is the final URL, used to resolve relative links.
 */
export function extract(html: string, url?: string, options: ExtractOptions = {}): ExtractResult {
  return extractWithSource(html, url, options).result;
}

/** `extract`, also telling which strategy produced the content (for the benchmark's diagnostics). */
export function extractWithSource(
  html: string,
  url?: string,
  options: ExtractOptions = {},
): { result: ExtractResult; source: ContentSource } {
  const result: ExtractResult = { markdown: '', html: '', text: '', links: [], metadata: {}, warnings: [] };
  const input = boundInput(typeof html === 'string' ? html : '', result.warnings);
  try {
    return { result, source: fill(result, input, url, options) };
  } catch (error) {
    result.warnings.push(`extraction failed: ${error instanceof Error ? error.message : String(error)}`);
    return { result, source: 'failed' };
  }
}

function fill(result: ExtractResult, html: string, url: string | undefined, options: ExtractOptions): ContentSource {
  const started = Date.now();
  const formats = new Set(options.formats ?? ALL_FORMATS);
  if (sourceDepth(html) > MAX_SOURCE_DEPTH) {
    setPlain(result, textWithoutParsing(html), 'page nested too deeply to parse: plain text only');
    return 'linear';
  }
  const document = parseDocument(html);
  const base = baseUrlOf(document, url);
  if (formats.has('metadata')) result.metadata = extractMetadata(document, base);
  const page = contentRoot(document);
  if (!page) return 'empty';
  if (formats.has('links')) result.links = collectLinks(page, base);
  if (!formats.has('markdown') && !formats.has('html') && !formats.has('text')) return 'empty';

  if (isOversized(page)) {
    setPlain(result, linearParagraphs(page), 'page too large or too deeply nested: plain paragraphs only');
    return 'linear';
  }
  normaliseCodeBlocks(page);
  if (options.includeTags?.length) keepOnly(page, options.includeTags, result.warnings);
  if (options.excludeTags?.length) {
    for (const element of select(page, options.excludeTags, result.warnings)) remove(element);
  }
  const reparse = (): Document => {
    const fresh = parseDocument(html);
    const freshPage = contentRoot(fresh);
    if (freshPage) normaliseCodeBlocks(freshPage);
    return fresh;
  };
  const { content, source } = contentOf(document, page, options, started, reparse);
  absolutizeTree(content, base);
  spaceAdjacentLinks(content);
  // Markdown is rendered from the cleaned tree itself: serialising it for turndown to parse
  // again with a second DOM cost a sixth of a crawled page's extraction time.
  const clean = formats.has('html') || formats.has('markdown') ? cleanCopy(content) : undefined;
  if (clean && formats.has('html')) result.html = clean.innerHTML.trim();
  if (formats.has('text')) result.text = renderText(content);
  if (clean && formats.has('markdown')) result.markdown = renderMarkdown(clean);
  return source;
}

function contentOf(
  document: Document,
  page: Element,
  options: ExtractOptions,
  started: number,
  reparse: () => Document,
): { content: Element; source: ContentSource } {
  // Selected elements are what the caller asked for: no scoring second-guesses them.
  const selected = Boolean(options.includeTags?.length);
  if (selected || options.onlyMainContent === false) {
    const whole = page.cloneNode(true) as Element;
    cleanWholePage(whole);
    return { content: whole, source: selected ? 'selected' : 'whole-page' };
  }
  const deadline = started + (options.timeBudgetMs ?? DEFAULT_BUDGET_MS);
  const main = extractMainContent(document, { deadline, reparse });
  return { content: main.content, source: main.stage };
}

/** Firecrawl's includeTags: the page becomes the matching elements, in document order. */
function keepOnly(page: Element, selectors: string[], warnings: string[]): void {
  const matched = select(page, selectors, warnings, 'includeTags');
  const chosen = new Set(matched);
  const copies = matched.filter((element) => !hasAncestorIn(element, chosen)).map((e) => e.cloneNode(true));
  while (page.firstChild) page.removeChild(page.firstChild);
  for (const copy of copies) page.appendChild(copy);
}

function hasAncestorIn(element: Element, set: ReadonlySet<Element>): boolean {
  for (let parent = element.parentElement; parent; parent = parent.parentElement) if (set.has(parent)) return true;
  return false;
}

/** The elements matching any selector, in document order; a selector of `option` that matches nothing is said. */
function select(page: Element, selectors: string[], warnings: string[], option?: 'includeTags'): Element[] {
  const found = new Set<Element>();
  for (const selector of selectors) {
    try {
      const matches = page.querySelectorAll(selector);
      if (option && matches.length === 0) warnings.push(`${option} selector matched nothing: ${selector}`);
      for (const element of Array.from(matches)) found.add(element);
    } catch {
      warnings.push(`invalid selector ignored: ${selector}`);
    }
  }
  return descendants(page).filter((element) => found.has(element));
}

function setPlain(result: ExtractResult, paragraphs: string[], warning: string): void {
  result.warnings.push(warning);
  result.text = paragraphs.join('\n\n');
  result.markdown = result.text;
  result.html = paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
