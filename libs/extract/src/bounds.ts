/*
 * Limits that keep extraction bounded on hostile or broken pages: the scoring cascade and the
 * Markdown converter walk trees recursively and several times, so oversized or absurdly deep
 * pages take a linear path instead.
 */
import { ELEMENT_NODE, TEXT_NODE, tagOf } from './dom.js';

/** Past this size scripts and styles are cut out as text first, then the rest is truncated. */
export const MAX_HTML_CHARS = 5_000_000;
/** Past this many elements the page takes the linear path. */
export const MAX_ELEMENTS = 60_000;
/** Past this nesting depth the page takes the linear path (real pages stay well under 100). */
export const MAX_DEPTH = 400;

export function boundInput(html: string, warnings: string[]): string {
  let bounded = html.replace(/\0/g, '');
  if (bounded.length <= MAX_HTML_CHARS) return bounded;
  bounded = bounded
    .replace(/<script\b[\s\S]*?<\/script\s*>/gi, '')
    .replace(/<style\b[\s\S]*?<\/style\s*>/gi, '')
    .replace(/<!--[\s\S]*?-->/g, '');
  if (bounded.length <= MAX_HTML_CHARS) return bounded;
  warnings.push(`input truncated to ${MAX_HTML_CHARS} characters`);
  return bounded.slice(0, MAX_HTML_CHARS);
}

/** Whether the tree is too large or too deep for the full pipeline, measured without recursion. */
export function isOversized(root: Element): boolean {
  let count = 0;
  const stack: Array<[Element, number]> = [[root, 0]];
  while (stack.length > 0) {
    const [element, depth] = stack.pop()!;
    if (++count > MAX_ELEMENTS || depth > MAX_DEPTH) return true;
    for (let child = element.firstElementChild; child; child = child.nextElementSibling) stack.push([child, depth + 1]);
  }
  return false;
}

const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'nav', 'footer', 'aside', 'form']);
/** Elements that end a paragraph of the linear text: blocks, list items, cells, line breaks. */
const BREAKING = new Set([
  'address',
  'article',
  'blockquote',
  'br',
  'caption',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'td',
  'th',
  'tr',
  'ul',
]);

/** Stands in the walk's stack for the end of a block. */
const BLOCK_END = { nodeType: 0 } as unknown as Node;

/** The page's visible text as paragraphs, in one iterative pass: the fallback for oversized pages. */
export function linearParagraphs(root: Element): string[] {
  const paragraphs: string[] = [];
  let current: string[] = [];
  const flush = (): void => {
    const text = current.join('').replace(/\s+/g, ' ').trim();
    if (text) paragraphs.push(text);
    current = [];
  };
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node === BLOCK_END) {
      flush();
      continue;
    }
    if (node.nodeType === TEXT_NODE) {
      current.push(node.textContent ?? '');
      continue;
    }
    if (node.nodeType !== ELEMENT_NODE) continue;
    const tag = tagOf(node);
    if (SKIPPED.has(tag)) continue;
    if (!BREAKING.has(tag)) {
      for (let child = node.lastChild; child; child = child.previousSibling) stack.push(child);
      continue;
    }
    // The block ends a paragraph where it starts and where it ends: a marker after its children.
    flush();
    stack.push(BLOCK_END);
    for (let child = node.lastChild; child; child = child.previousSibling) stack.push(child);
  }
  flush();
  return paragraphs;
}

/** Nesting past this in the source makes the HTML parser quadratic: such pages are not parsed. */
export const MAX_SOURCE_DEPTH = 3000;
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

/** An upper estimate of the source's nesting depth (unclosed paragraphs count as nested). */
export function sourceDepth(html: string): number {
  let depth = 0;
  let max = 0;
  for (const match of html.matchAll(/<(\/?)([a-zA-Z][\w-]*)[^>]*?(\/?)>/g)) {
    const [, closing, name = '', selfClosing] = match;
    if (closing) depth = Math.max(0, depth - 1);
    else if (!selfClosing && !VOID.has(name.toLowerCase())) max = Math.max(max, ++depth);
  }
  return max;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Text of a page that cannot be parsed, from the markup alone. */
export function textWithoutParsing(html: string): string[] {
  return html
    .replace(/<(script|style|noscript|template|head)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(
      /<\/?(?:p|div|br|li|tr|td|th|dt|dd|h[1-6]|pre|blockquote|section|article|header|main|figure|figcaption|caption|hr|table|ul|ol|dl)\b[^>]*>/gi,
      '\n',
    )
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[\da-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => decodeEntity(entity, name))
    .split(/\n/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
}

function decodeEntity(entity: string, name: string): string {
  const code = /^#x/i.test(name)
    ? Number.parseInt(name.slice(2), 16)
    : name.startsWith('#')
      ? Number(name.slice(1))
      : NaN;
  if (Number.isInteger(code) && code > 0 && code <= 0x10ffff) return String.fromCodePoint(code);
  return ENTITIES[name.toLowerCase()] ?? entity;
}
