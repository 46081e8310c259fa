import { ELEMENT_NODE, TEXT_NODE, tagOf } from '../dom.js';

/** Blocks set apart by a blank line. */
const PARAGRAPH = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'header',
  'footer',
  'nav',
  'aside',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'pre',
  'blockquote',
  'table',
  'ul',
  'ol',
  'dl',
  'figure',
  'form',
  'fieldset',
  'address',
  'details',
  'center',
  'hgroup',
  'menu',
  'search',
  'dialog',
]);
/** Blocks on a line of their own. */
const LINE = new Set(['li', 'dt', 'dd', 'tr', 'figcaption', 'caption', 'summary', 'hr', 'legend', 'option']);
const LISTS = new Set(['ul', 'ol', 'dl']);
const CELL = new Set(['td', 'th']);
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'meta', 'link']);
/** Soft hyphens and zero-width spaces: invisible on the page, they would split words in the text. */
export const INVISIBLE = /[\u00AD\u200B\u2060\uFEFF]/g;

/**
 * Plain text of a tree: paragraphs apart by blank lines, list items and table rows on lines of
 * their own, cells split by " | ", preformatted text kept as is.
 */
export function renderText(root: Node): string {
  const out: string[] = [];
  // Pending break before the next text: 0 none, 1 line, 2 paragraph; adjacent breaks merge.
  let pending = 0;
  let cellOpen = false;
  const write = (text: string): void => {
    if (out.length > 0 && pending > 0) out.push(pending === 2 ? '\n\n' : '\n');
    else if (cellOpen) out.push(' | ');
    pending = 0;
    cellOpen = false;
    out.push(text);
  };
  const walk = (node: Node, pre: boolean, inItem: boolean): void => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === TEXT_NODE) {
        const raw = (child.textContent ?? '').replace(INVISIBLE, '');
        if (pre) {
          if (raw) write(raw.replace(/\r\n?/g, '\n'));
        } else {
          const text = raw.replace(/\s+/g, ' ');
          // A lone space between blocks is layout, not text.
          if (text.trim()) write(pending > 0 || cellOpen || out.length === 0 ? text.trimStart() : text);
          else if (text && out.length > 0 && pending === 0 && !cellOpen) out.push(' ');
        }
        continue;
      }
      if (child.nodeType !== ELEMENT_NODE) continue;
      const tag = tagOf(child);
      if (SKIPPED.has(tag)) continue;
      if (tag === 'br') {
        pending = Math.max(pending, 1);
        continue;
      }
      const strength = LISTS.has(tag) && inItem ? 1 : PARAGRAPH.has(tag) ? 2 : LINE.has(tag) ? 1 : 0;
      if (CELL.has(tag) && out.length > 0 && pending === 0) cellOpen = true;
      pending = Math.max(pending, strength);
      walk(child, pre || tag === 'pre', inItem || tag === 'li' || tag === 'dd');
      pending = Math.max(pending, strength);
      if (CELL.has(tag)) cellOpen = true;
    }
  };
  walk(root, false, false);
  return out
    .join('')
    .replace(/[ \t]+\n/g, '\n')
    .trim();
}
