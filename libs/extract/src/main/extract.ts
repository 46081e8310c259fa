import { cleanForExtraction } from '../clean.js';
import { collapsedLength, contentRoot, descendants, removeAll, tagOf, textOf } from '../dom.js';
import { articleBodyParagraphs, baselineContent, DEDUPE_SCAN_CAP, MIN_EXTRACTED, paragraphsOf } from './baseline.js';
import { collectBlocks, DONE, dropTrailingHeadings } from './collect.js';
import { CONTENT_CANDIDATES, isCommentSection, isLead } from './patterns.js';
import { pruneMatching, pruneSections } from './prune.js';
import { readabilityCandidate } from './readability.js';

/** Paragraph text below which loose text in divs counts as content too. */
const DIV_MODE_BELOW = 3 * MIN_EXTRACTED;

/** Which strategy of the cascade produced the content (for the benchmark's diagnostics). */
export type MainStage = 'containers' | 'recovery' | 'readability' | 'baseline' | 'empty';

export interface MainContent {
  content: Element;
  stage: MainStage;
}

export interface MainOptions {
  /** Epoch ms after which the optional comparison strategies are skipped. */
  deadline: number;
  /** A fresh parse of the same page, for the rare last resort after Readability consumed the first. */
  reparse: () => Document;
}

/**
 * Finds the main content of a page and returns it as a fresh element holding copies of the
 * content blocks. The cascade follows trafilatura: known content containers pruned of
 * boilerplate, then loose paragraphs, then Readability when it finds clearly more, then a
 * paragraph baseline. Consumes `document`: every tree copy costs, so the page is used up in place.
 */
export function extractMainContent(document: Document, options: MainOptions): MainContent {
  const out = document.createElement('div');
  const page = contentRoot(document);
  if (!page) return { content: out, stage: 'empty' };
  const forum = isForumThread(document);
  if (!forum) pruneMatching(page, isCommentSection, false);
  // The publisher's own statement of the article body beats markup that hides most of it.
  const stated = articleBodyParagraphs(document);
  const cleaned = page.cloneNode(true) as Element;
  cleanForExtraction(cleaned);

  let result = fromCandidates(cleaned, out);
  let stage: MainStage = 'containers';
  // The result's text length, measured again only when the result changes (a page's text
  // measured four times was a sixteenth of its extraction).
  let length = textLength(result);
  if (length < MIN_EXTRACTED) {
    const backup = page.cloneNode(true) as Element;
    cleanForExtraction(backup);
    result = recoverWildText(backup, result);
    stage = 'recovery';
    length = -1;
  }
  if (dropRepeatedBlocks(result) || length < 0) length = textLength(result);

  let raw: Element | undefined = page;
  if (Date.now() < options.deadline && !richEnough(result, length)) {
    const candidate = readabilityCandidate(document);
    raw = undefined;
    if (candidate && preferCandidate(result, length, candidate)) {
      result = candidate;
      length = textLength(result);
      stage = 'readability';
    }
  }
  if (stated.join(' ').length > 2 * length) {
    result = paragraphsOf(document.createElement('div'), stated);
    length = textLength(result);
    stage = 'baseline';
  }
  if (length < MIN_EXTRACTED) {
    raw ??= freshPage(options.reparse(), forum);
    const fallback = raw ? baselineContent(raw) : undefined;
    if (fallback && textLength(fallback) > length) {
      result = fallback;
      stage = 'baseline';
    }
  }
  return { content: result, stage };
}

function freshPage(document: Document, forum: boolean): Element | undefined {
  const page = contentRoot(document);
  if (page && !forum) pruneMatching(page, isCommentSection, false);
  return page;
}

function fromCandidates(cleaned: Element, out: Element): Element {
  for (const isCandidate of CONTENT_CANDIDATES) {
    const subtree = descendants(cleaned).find(isCandidate);
    if (!subtree) continue;
    pruneSections(subtree);
    if (subtree.childElementCount === 0) continue;
    // trafilatura measures the whole page's paragraphs here, not the candidate's
    const divMode = paragraphTextLength(cleaned) < DIV_MODE_BELOW;
    collectLeads(subtree, out);
    collectBlocks(subtree, out, { divMode });
    dropTrailingHeadings(out);
    if (out.childElementCount > 1) break;
  }
  return out;
}

/** How far up from the content container a lead may sit. */
const LEAD_LEVELS = 4;
const MAX_LEAD = 1500;

/**
 * Themes often set the lead paragraph apart, just before the body container the rules
 * found: takes lead boxes from the preceding siblings of the container and its ancestors.
 */
function collectLeads(subtree: Element, out: Element): void {
  const leads: Element[] = [];
  let level: Element | null = subtree;
  for (let depth = 0; level && depth < LEAD_LEVELS && tagOf(level) !== 'body'; depth++) {
    for (let sibling = level.previousElementSibling; sibling; sibling = sibling.previousElementSibling) {
      const found = isLead(sibling) ? [sibling] : descendants(sibling).filter((e) => isLead(e) || isDeck(e));
      leads.unshift(...found.filter((e) => !found.some((other) => other !== e && other.contains(e))));
    }
    level = level.parentElement;
  }
  for (const lead of leads) {
    if (lead.hasAttribute(DONE) || textLength(lead) > MAX_LEAD) continue;
    const copy = lead.cloneNode(true) as Element;
    pruneSections(copy);
    const wrapper = out.ownerDocument.createElement('div');
    wrapper.appendChild(copy);
    collectBlocks(wrapper, out, { divMode: true });
    lead.setAttribute(DONE, '');
  }
}

/** A sentence-long paragraph in the article header: the deck under the headline. */
function isDeck(element: Element): boolean {
  const header = tagOf(element) === 'p' ? element.closest('header') : null;
  // The page's own header carries notices and taglines, an article's header carries the deck.
  if (!header || !(header.closest('article, main') || ARTICLE_HEADER.test(header.getAttribute('class') ?? '')))
    return false;
  const length = textLength(element);
  const linked = Array.from(element.getElementsByTagName('a')).reduce((sum, a) => sum + textLength(a), 0);
  return length >= MIN_DECK && linked < length / 2;
}

const MIN_DECK = 80;
const ARTICLE_HEADER = /article|entry|post|story|content/i;

const WILD = new Set(['p', 'pre', 'code', 'blockquote', 'q', 'table']);

/** Picks up paragraphs anywhere on the page when the containers gave too little. */
function recoverWildText(backup: Element, result: Element): Element {
  pruneSections(backup);
  const seen = new Set<string>();
  let existing = '';
  for (const block of Array.from(result.children)) {
    const text = textOf(block);
    seen.add(text);
    existing += `\n${text}`;
  }
  for (const element of descendants(backup)) {
    if (!WILD.has(tagOf(element)) || element.parentElement?.closest(`[${DONE}]`)) continue;
    const text = textOf(element);
    element.setAttribute(DONE, '');
    const scanned = existing.length < DEDUPE_SCAN_CAP;
    if (!text || seen.has(text) || (text.length > 50 && scanned && existing.includes(text))) continue;
    if (scanned && inTakenItem(element, existing)) continue;
    const copy = element.cloneNode(true) as Element;
    // Inline code and quotes stand alone here: a block of their own keeps their words apart.
    result.appendChild(INLINE_WILD.has(tagOf(element)) ? wrapped(copy, 'p') : copy);
    seen.add(text);
    if (scanned) existing += `\n${text}`;
  }
  return result;
}

const INLINE_WILD = new Set(['code', 'q']);
const ITEM_OR_CELL = 'li, dd, dt, td, th';

/** A paragraph of a list item or cell whose whole text the result holds already (a listing taken whole). */
function inTakenItem(element: Element, existing: string): boolean {
  const item = element.parentElement?.closest(ITEM_OR_CELL);
  return Boolean(item && existing.includes(textOf(item)));
}

function wrapped(element: Element, tag: string): Element {
  const wrapper = element.ownerDocument.createElement(tag);
  wrapper.appendChild(element);
  return wrapper;
}

/** Overlapping candidates can yield one block twice in a row; true when some were dropped. */
function dropRepeatedBlocks(result: Element): boolean {
  let previous = '';
  const repeated: Element[] = [];
  for (const block of Array.from(result.children)) {
    const text = textOf(block);
    if (text && text === previous && text.length > 50) repeated.push(block);
    else previous = text;
  }
  removeAll(repeated);
  return repeated.length > 0;
}

/** Trafilatura's rule for trusting the generic algorithm over the container rules. */
/**
 * Main text this long, mostly in paragraphs, is trusted without asking
 * Readability, which could only replace it by finding twice as much. Measured
 * on the shared extraction set (`node libs/extract/dist/eval/run.js`): F1
 * 0.9354 instead of 0.9359, the run 17 s instead of 23–31 s; on the test
 * site's articles 1.7 ms a page instead of 2.9 (Readability re-scores the page).
 */
const RICH_ENOUGH = 1_000;

function richEnough(own: Element, ownLength: number): boolean {
  if (ownLength < RICH_ENOUGH) return false;
  const paragraphs = own.querySelectorAll('p').length;
  return paragraphTextLength(own) > 0.6 * ownLength && own.querySelectorAll('table').length <= paragraphs;
}

function preferCandidate(own: Element, ownLength: number, candidate: Element): boolean {
  const candidateLength = textLength(candidate);
  if (candidateLength === 0 || candidateLength === ownLength) return false;
  if (ownLength > 2 * candidateLength) return false;
  if (ownLength === 0) return true;
  if (candidateLength > 2 * ownLength && !textOf(candidate).startsWith('{')) return true;
  const paragraphs = own.querySelectorAll('p').length;
  const structurallyPoor = paragraphTextLength(own) === 0 || own.querySelectorAll('table').length > paragraphs;
  return candidateLength > 2 * MIN_EXTRACTED && structurallyPoor;
}

export function textLength(element: Element): number {
  return collapsedLength(element.textContent);
}

function paragraphTextLength(root: Element): number {
  let length = 0;
  for (const p of Array.from(root.querySelectorAll('p'))) length += (p.textContent ?? '').length;
  return length;
}

/** A forum thread's posts sit in comment-like containers but are the content. */
function isForumThread(document: Document): boolean {
  return Array.from(document.querySelectorAll('script[type="application/ld+json"]')).some((script) =>
    /"DiscussionForumPosting"/.test(script.textContent ?? ''),
  );
}
