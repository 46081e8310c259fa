import { isElement, TEXT_NODE, tagOf, trim } from '../dom.js';
import { SOCIAL_LINE } from './patterns.js';

/** Phrasing elements: their text belongs to the block around them. */
export const INLINE = new Set([
  'a',
  'abbr',
  'acronym',
  'b',
  'bdi',
  'bdo',
  'big',
  'br',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'img',
  'ins',
  'kbd',
  'label',
  'mark',
  'nobr',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'sup',
  'time',
  'tt',
  'u',
  'var',
  'wbr',
]);

/** Blocks taken whole, with everything inside them. */
const WHOLE = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'dl', 'pre', 'blockquote']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** Containers whose loose text is content even outside div mode. */
const LOOSE_TEXT_OK = new Set(['td', 'th', 'caption', 'li', 'dd', 'dt']);
const BLOCK_INSIDE_INLINE = 'p,div,ul,ol,dl,table,pre,blockquote,h1,h2,h3,h4,h5,h6,section,article';
export const DONE = 'data-wap-done';

export interface CollectOptions {
  /** Take loose text in generic containers (div, section...): set when the page has few <p>. */
  divMode: boolean;
}

/**
 * Walks a pruned subtree in document order and appends copies of its text blocks to `out`:
 * paragraphs, headings, lists, quotes, code and data tables whole; loose text in generic
 * containers only in div mode or after a line break. Emitted originals are marked done so a
 * later, overlapping candidate does not take them twice.
 */
export function collectBlocks(subtree: Element, out: Element, options: CollectOptions): void {
  const document = out.ownerDocument;
  const emit = (block: Element, original?: Element): void => {
    if (!hasText(block) && !(tagOf(block) === 'figure' && block.querySelector('img'))) return;
    if (isSocialLabel(block)) return;
    out.appendChild(block);
    original?.setAttribute(DONE, '');
  };

  const flush = (run: Node[], container: Element): void => {
    if (run.length === 0) return;
    const loose = options.divMode || LOOSE_TEXT_OK.has(tagOf(container));
    if (loose) {
      emit(paragraphOf(document, run));
      return;
    }
    // Text after a line break reads as a paragraph of its own; code and quotes are blocks.
    let afterBreak = false;
    let piece: Node[] = [];
    for (const node of run) {
      if (tagOf(node) === 'br') {
        if (afterBreak) emit(paragraphOf(document, piece));
        afterBreak = true;
        piece = [];
      } else if (afterBreak) piece.push(node);
      else if (tagOf(node) === 'code' || tagOf(node) === 'q') emit(wrapClone(document, node, 'pre'));
    }
    if (afterBreak) emit(paragraphOf(document, piece));
  };

  const walk = (container: Element): void => {
    let run: Node[] = [];
    for (let child = container.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === TEXT_NODE) {
        run.push(child);
        continue;
      }
      if (!isElement(child) || child.hasAttribute(DONE)) continue;
      const tag = tagOf(child);
      if (INLINE.has(tag) && !child.querySelector(BLOCK_INSIDE_INLINE)) {
        run.push(child);
        continue;
      }
      flush(run, container);
      run = [];
      if (WHOLE.has(tag)) emit(child.cloneNode(true) as Element, child);
      else if (tag === 'table' && !isLayoutTable(child)) emit(child.cloneNode(true) as Element, child);
      else if (tag === 'figure' && !child.querySelector(BLOCK_INSIDE_INLINE))
        emit(child.cloneNode(true) as Element, child);
      else walk(child);
    }
    flush(run, container);
  };
  walk(subtree);
}

/** Drops headings left dangling at the end: they introduce content that was not kept. */
export function dropTrailingHeadings(out: Element): void {
  while (out.lastElementChild && HEADINGS.has(tagOf(out.lastElementChild))) out.lastElementChild.remove();
}

/** A table that lays out the page rather than holding data: nested tables or a single column. */
export function isLayoutTable(table: Element): boolean {
  if (table.querySelector('table')) return true;
  let widest = 0;
  for (const row of Array.from(table.querySelectorAll('tr'))) {
    widest = Math.max(widest, row.querySelectorAll('td,th').length);
  }
  return widest <= 1;
}

function paragraphOf(document: Document, nodes: Node[]): Element {
  const p = document.createElement('p');
  for (const node of nodes) p.appendChild(node.cloneNode(true));
  return p;
}

function wrapClone(document: Document, node: Node, tag: string): Element {
  const wrapper = document.createElement(tag);
  wrapper.appendChild(node.cloneNode(true));
  return wrapper;
}

function hasText(element: Element): boolean {
  return /\S/.test(element.textContent ?? '');
}

function isSocialLabel(block: Element): boolean {
  const tag = tagOf(block);
  if (tag !== 'p' && !HEADINGS.has(tag)) return false;
  return (block.textContent ?? '')
    .split('\n')
    .some((line) => shortEnoughForLabel(line) && SOCIAL_LINE.test(trim(line)));
}

/**
 * SOCIAL_LINE is a run of non-word characters and then one label, whose
 * longest ("More on this" and 8 more) has 18 characters that are not spaces:
 * a line with more than that from its first word character on cannot match.
 * Counted on the line as it is, and stopped early, instead of trimming every
 * line of every block (a twentieth of a page's extraction). Characters past
 * ASCII are not counted, so nothing that could match is turned away.
 */
function shortEnoughForLabel(line: string): boolean {
  let counted = -1;
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if (code <= 32 || code >= 127) continue;
    if (counted < 0) {
      if (!isWordCode(code)) continue;
      counted = 0;
    }
    if (++counted > MAX_LABEL_CHARS) return false;
  }
  return true;
}

const MAX_LABEL_CHARS = 20;

/** [A-Za-z0-9_]: `\w` without the u flag, as SOCIAL_LINE reads it. */
function isWordCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}
