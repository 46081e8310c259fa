// What a page states beside its main content, for the model formats: its
// metadata (description, author, dates, og: and article: fields), its
// schema.org data (JSON-LD), and the short labelled lines main-content
// extraction left out ("By Jonas Berg", "Brand: Acme" in a sidebar). A model
// asked for an author never sees a byline the main content dropped; these
// lines go to it ahead of the page text, one fact a line, within a budget.
import type { ExtractResult } from '@wap/extract';
import type { crawl } from '@wap/proto';

/** The most characters of facts sent: the agent gives them at most a share of the model's budget. */
export const MAX_FACTS_CHARS = 2_000;
const MAX_VALUE_CHARS = 300;
const MAX_JSON_LD_CHARS = 1_000;
const MAX_LEFT_OUT_LINES = 20;

/** Metadata that says nothing of what the page holds (rendering, verification, robots, links to itself). */
const NOT_FACTS =
  /^(title|language|canonical|favicon|robots|viewport|theme-color|color-scheme|generator|referrer|format-detection|csrf[\w-]*|google[\w-]*|msapplication[\w-]*|apple[\w-]*|mobile-web-app[\w-]*|fb:[\w:]*|twitter:(card|site|creator|image[\w:]*|url)|og(Url|Image|Locale|LocaleAlternate)|og:(image|video|audio|url)[\w:]*|[\w-]*verification|sourceURL|url|statusCode|contentType|scrapeId|engine|proxyUsed|cacheState|cachedAt|numPages|parsedPages|pagesWithoutText|ocr|javascript)$/i;

/** A short line that labels its value: "Brand: Acme", "Salary – €52k", or a byline ("By Jonas Berg"). */
const LABELLED = /^[\p{L}][\p{L}\p{N} ./&'()-]{0,40}\s?[:：–—]\s*\S/u;
const BYLINE = /^(by|written by|von|par|por|door|di|av|af|de|przez|от|作者)[\s:]+\p{Lu}/iu;

const clip = (value: string, max: number) => (value.length > max ? `${value.slice(0, max - 1)}…` : value);
const oneLine = (value: string) => value.replace(/\s+/g, ' ').trim();

/** The page's metadata worth a model's reading, as `name: value` lines. */
export function metadataFacts(metadata: ExtractResult['metadata']): string[] {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(metadata)) {
    if (NOT_FACTS.test(name) || value === undefined) continue;
    const text = oneLine(Array.isArray(value) ? value.join(', ') : String(value));
    if (text && !/^https?:\/\//i.test(text)) lines.push(`${name}: ${clip(text, MAX_VALUE_CHARS)}`);
  }
  return lines;
}

const JSON_LD = /<script\b[^>]*\btype\s*=\s*["']?application\/ld\+json["']?[^>]*>([\s\S]*?)<\/script>/gi;

/** The page's JSON-LD as `Type.path: value` lines (its @context, ids and links left out). */
export function jsonLdFacts(html: string): string[] {
  const lines: string[] = [];
  let chars = 0;
  const add = (path: string, value: unknown) => {
    const text = oneLine(String(value));
    if (!text || /^https?:\/\//i.test(text) || chars > MAX_JSON_LD_CHARS) return;
    const line = `${path}: ${clip(text, MAX_VALUE_CHARS)}`;
    chars += line.length + 1;
    lines.push(line);
  };
  const walk = (node: unknown, path: string, depth: number): void => {
    if (depth > 5 || node === null || node === undefined) return;
    if (Array.isArray(node)) {
      for (const item of node.slice(0, 5)) walk(item, path, depth + 1);
      return;
    }
    if (typeof node !== 'object') {
      add(path, node);
      return;
    }
    const record = node as Record<string, unknown>;
    const type = typeof record['@type'] === 'string' ? record['@type'] : '';
    const here = path ? path : type;
    for (const [key, value] of Object.entries(record)) {
      if (key.startsWith('@') && key !== '@graph') continue;
      walk(value, key === '@graph' ? '' : here ? `${here}.${key}` : key, depth + 1);
    }
  };
  for (const match of html.slice(0, 4_000_000).matchAll(JSON_LD)) {
    try {
      walk(JSON.parse((match[1] ?? '').trim()), '', 0);
    } catch {
      // A broken block says nothing.
    }
  }
  return lines;
}

/** The labelled lines of the whole page's text that its main content left out. */
export function leftOutFacts(mainText: string, wholeText: string): string[] {
  const kept = new Set(mainText.split('\n').map(oneLine));
  const lines: string[] = [];
  for (const raw of wholeText.split('\n')) {
    const line = oneLine(raw);
    if (!line || line.length > 160 || kept.has(line) || lines.includes(line)) continue;
    if (LABELLED.test(line) || (line.length <= 80 && BYLINE.test(line))) lines.push(line);
    if (lines.length >= MAX_LEFT_OUT_LINES) break;
  }
  return lines;
}

/** The facts of a page, one a line, at most MAX_FACTS_CHARS; `wholeText` is its text without main-content extraction. */
export function pageFacts(
  extracted: Pick<ExtractResult, 'metadata' | 'text'>,
  html: string | undefined,
  wholeText: string | undefined,
): string {
  const lines = [
    ...metadataFacts(extracted.metadata),
    ...(html ? jsonLdFacts(html) : []),
    ...(wholeText ? leftOutFacts(extracted.text, wholeText) : []),
  ];
  let out = '';
  for (const line of lines) {
    if (out.length + line.length + 1 > MAX_FACTS_CHARS) break;
    out += `${out ? '\n' : ''}${line}`;
  }
  return out;
}

/** Whether the whole page's text is worth extracting again for the lines main content left out. */
export const wantsWholeText = (options: crawl.ScrapeOptions) =>
  (options.onlyMainContent ?? true) && options.includeTags.length === 0;
