// Page states for the compact step's tests: an element of the outline, a line of text, and a page
// of them, as the page script and the element list would give them.
import type { ElementInfo, OutlineEntry, PageState } from '../browser/types.js';

/** An element of the outline, keyed as the element list keys it. */
export const element = (index: number, info: ElementInfo, fresh = false): OutlineEntry => ({
  kind: 'element',
  index,
  depth: 0,
  info,
  key: `${info.role}|${info.name}#1`,
  fresh,
});

/** A line of plain text between elements. */
export const text = (t: string): OutlineEntry => ({ kind: 'text', depth: 0, text: t });

/** A page of `outline`, not scrolled, at a loopback URL. */
export function pageOf(outline: OutlineEntry[], extra: Partial<PageState> = {}): PageState {
  return {
    url: 'http://127.0.0.1/form',
    title: 'Form',
    tabs: [],
    scroll: { above: 0, below: 0 },
    elements: '',
    count: outline.filter((e) => e.kind === 'element').length,
    outline,
    fingerprint: 'f1',
    ...extra,
  };
}
