import { descendants, ELEMENT_NODE, unwrap } from '../dom.js';

const KEPT_ATTRIBUTES = new Set([
  'href',
  'src',
  'alt',
  'title',
  'colspan',
  'rowspan',
  'lang',
  'dir',
  'start',
  'datetime',
]);

/**
 * A copy of a content tree without presentation attributes (classes survive only as code
 * languages), shaped as a browser's parser would leave it: what the html and markdown formats render.
 */
export function cleanCopy(root: Element): Element {
  const copy = root.cloneNode(true) as Element;
  for (const element of descendants(copy)) {
    for (const name of element.getAttributeNames()) {
      const keep =
        KEPT_ATTRIBUTES.has(name) ||
        (name === 'class' && element.localName === 'code' && /^language-/.test(element.getAttribute(name) ?? ''));
      if (!keep) element.removeAttribute(name);
    }
  }
  // The parser splits text at entities; turndown escapes each text node's start, so "23. May"
  // after "&amp;" would read as a list item unless the pieces are joined as a browser's are.
  copy.normalize();
  unwrapStrayTableParts(copy);
  wrapTableRows(copy);
  return copy;
}

const TABLE_PARTS = 'td, th, tr, thead, tbody, tfoot, caption, colgroup, col';

/** Cells and rows outside any table: a browser's parser drops those tags and keeps their content. */
function unwrapStrayTableParts(root: Element): void {
  for (const part of Array.from(root.querySelectorAll(TABLE_PARTS))) {
    if (!part.parentElement?.closest('table')) unwrap(part);
  }
}

/** Rows written straight under <table> go into a <tbody>, as a browser's parser puts them. */
function wrapTableRows(root: Element): void {
  for (const table of Array.from(root.querySelectorAll('table'))) {
    let body: Element | undefined;
    for (const child of Array.from(table.childNodes)) {
      const row = child.nodeType === ELEMENT_NODE && (child as Element).localName === 'tr';
      if (row) {
        if (!body) {
          body = table.ownerDocument.createElement('tbody');
          table.insertBefore(body, child);
        }
        body.appendChild(child);
      } else if (child.nodeType === ELEMENT_NODE) body = undefined;
      else if (body) body.appendChild(child); // white space between rows stays with them
    }
  }
}
