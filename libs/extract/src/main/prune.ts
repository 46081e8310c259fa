import { collapsedLength, descendants, removeAll, tagOf, trim } from '../dom.js';
import { isBoilerplate, isCaption, isHiddenOrReply, isTeaser } from './patterns.js';

const LISTS = new Set(['ul', 'ol', 'dl']);
const CELL_OR_ITEM = new Set(['li', 'dd', 'dt', 'td', 'th']);
/** Link text over this share of a block's text marks a link farm (latest-news boxes). */
const LINK_FARM_RATIO = 0.9;

export interface PruneOptions {
  /** Keep teaser blocks: the recovery path runs when the confident path came up short. */
  keepTeasers?: boolean;
}

/** Deletes boilerplate sections from a candidate subtree, in place. */
export function pruneSections(root: Element, options: PruneOptions = {}): void {
  pruneMatching(root, (e) => isBoilerplate(e) || isHiddenOrReply(e), true);
  pruneMatching(root, isCaption, false);
  if (!options.keepTeasers) pruneMatching(root, isTeaser, false);
  for (let pass = 0; pass < 2; pass++) {
    pruneByLinkDensity(root, (tag) => tag === 'div', true);
    pruneByLinkDensity(root, (tag) => LISTS.has(tag), false);
    pruneByLinkDensity(root, (tag) => tag === 'p', false);
  }
  removeAll(descendants(root).filter((e) => tagOf(e) === 'table' && isLinkTable(e)));
}

/**
 * Removes matching elements; with `guarded`, gives up when that would leave under a seventh
 * of the text, since a rule that eats the whole page has matched a page-wide wrapper.
 */
export function pruneMatching(root: Element, matches: (e: Element) => boolean, guarded: boolean): void {
  const hits: Element[] = [];
  const stack: Element[] = [];
  for (let child = root.lastElementChild; child; child = child.previousElementSibling) stack.push(child);
  while (stack.length > 0) {
    const element = stack.pop()!;
    if (matches(element)) {
      hits.push(element);
      continue;
    }
    for (let child = element.lastElementChild; child; child = child.previousElementSibling) stack.push(child);
  }
  if (hits.length === 0) return;
  if (guarded) {
    const before = (root.textContent ?? '').length;
    const removed = hits.reduce((sum, e) => sum + (e.textContent ?? '').length, 0);
    if (before - removed <= before / 7) return;
  }
  removeAll(hits);
}

interface LinkInfo {
  linkLength: number;
  count: number;
  short: number;
}

function linkInfo(links: Element[]): LinkInfo {
  let linkLength = 0;
  let count = 0;
  let short = 0;
  for (const link of links) {
    const text = trim(link.textContent);
    if (!text) continue;
    linkLength += text.length;
    count++;
    if (text.length < 10) short++;
  }
  return { linkLength, count, short };
}

/** Whether a block is mostly links; `tested` tells whether the short-block test ran (for backtracking). */
export function linkDensityTest(element: Element, textLength: number): { boilerplate: boolean; tested: boolean } {
  const links = Array.from(element.getElementsByTagName('a'));
  if (links.length === 0) return { boilerplate: false, tested: false };
  if (links.length === 1) {
    const linkText = trim(links[0]!.textContent);
    if (linkText.length > 100 && linkText.length > textLength * 0.9) return { boilerplate: true, tested: false };
  }
  const last = element.nextElementSibling === null;
  const limit = tagOf(element) === 'p' ? (last ? 60 : 30) : last ? 300 : 100;
  if (textLength < limit) {
    const info = linkInfo(links);
    if (info.count === 0) return { boilerplate: true, tested: true };
    const boilerplate = info.linkLength > textLength * 0.8 || (info.count > 1 && info.short / info.count > 0.8);
    return { boilerplate, tested: true };
  }
  if (links.length > 4) {
    const info = linkInfo(links);
    // One long link per card is a listing, not a link farm.
    if (info.linkLength > textLength * LINK_FARM_RATIO && info.linkLength < 100 * info.count) {
      return { boilerplate: true, tested: false };
    }
  }
  return { boilerplate: false, tested: false };
}

function pruneByLinkDensity(root: Element, selects: (tag: string) => boolean, backtracking: boolean): void {
  const doomed: Element[] = [];
  for (const element of descendants(root)) {
    const tag = tagOf(element);
    if (!selects(tag)) continue;
    // Only the length is needed: counting it does not build the collapsed text of every nested block.
    const length = collapsedLength(element.textContent);
    const { boilerplate, tested } = linkDensityTest(element, length);
    const shortLinkyBlock = backtracking && tested && length > 0 && length < 100 && element.childElementCount >= 3;
    if (!boilerplate && !shortLinkyBlock) continue;
    // A paragraph holding a list item's or cell's content goes with its list or table, not alone.
    if (tag === 'p' && CELL_OR_ITEM.has(tagOf(element.parentElement as Element))) continue;
    doomed.push(element);
  }
  removeAll(doomed);
}

function isLinkTable(table: Element): boolean {
  const links = Array.from(table.getElementsByTagName('a'));
  if (links.length === 0) return false;
  const length = trim(table.textContent).length;
  if (length < 200) return false;
  const { linkLength } = linkInfo(links);
  return length < 1000 ? linkLength > 0.8 * length : linkLength > 0.5 * length;
}
