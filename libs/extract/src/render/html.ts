import { descendants } from '../dom.js';

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

/** Serialises a content tree without presentation attributes (classes survive only as code languages). */
export function renderHtml(root: Element): string {
  const copy = root.cloneNode(true) as Element;
  for (const element of descendants(copy)) {
    for (const name of element.getAttributeNames()) {
      const keep =
        KEPT_ATTRIBUTES.has(name) ||
        (name === 'class' && element.localName === 'code' && /^language-/.test(element.getAttribute(name) ?? ''));
      if (!keep) element.removeAttribute(name);
    }
  }
  return copy.innerHTML.trim();
}
