import { byTags, descendants, remove, tagOf, trim, unwrap } from './dom.js';

const NOSCRIPT_CONTENT = 200;

/** Never content in any mode: code, styling, embedded documents, metadata. */
const ALWAYS_REMOVED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'meta',
  'link',
  'base',
  'title',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'param',
  'dialog',
]);

/**
 * Removed before main-content extraction: interactive widgets, media and page chrome.
 * Trafilatura's list, measured on its evaluation set; figures and <time> go too because
 * captions and date lines are boilerplate far more often than article text.
 */
const MAIN_REMOVED = new Set([
  ...ALWAYS_REMOVED,
  'aside',
  'fencedframe',
  'footer',
  'form',
  'menu',
  'audio',
  'canvas',
  'map',
  'picture',
  'svg',
  'video',
  'area',
  'blink',
  'button',
  'datalist',
  'fieldset',
  'input',
  'ins',
  'label',
  'legend',
  'marquee',
  'math',
  'menuitem',
  'nav',
  'noindex',
  'optgroup',
  'option',
  'output',
  'progress',
  'rp',
  'rt',
  'rtc',
  'select',
  'source',
  'track',
  'textarea',
  'time',
  'use',
]);

/** Wrappers whose text belongs to their parent. */
const MAIN_UNWRAPPED = new Set([
  'abbr',
  'acronym',
  'address',
  'bdi',
  'bdo',
  'big',
  'cite',
  'data',
  'dfn',
  'font',
  'hgroup',
  'mark',
  'nobr',
  'ruby',
  'small',
  'tbody',
  'tfoot',
  'thead',
]);

/** Elements that say nothing when empty. */
const PRUNED_WHEN_EMPTY = new Set([
  'article',
  'b',
  'blockquote',
  'dd',
  'div',
  'dt',
  'em',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'i',
  'li',
  'main',
  'p',
  'pre',
  'q',
  'section',
  'span',
  'strong',
]);

/** Strips code and hidden machinery, keeping every visible part of the page (onlyMainContent: false). */
export function cleanWholePage(root: Element): void {
  for (const element of descendants(root)) {
    const tag = tagOf(element);
    if (ALWAYS_REMOVED.has(tag) || (tag === 'input' && element.getAttribute('type') === 'hidden')) remove(element);
  }
  removeComments(root);
}

/** Prepares a tree for main-content extraction: removes widgets and chrome, flattens wrappers. */
export function cleanForExtraction(root: Element): void {
  for (const element of descendants(root)) {
    const tag = tagOf(element);
    // A figure or a presentation table around a data table is layout, not an illustration.
    if (tag === 'noscript' && isNoscriptContent(element)) unwrap(element);
    // Captions read as boilerplate more often than not; the picture itself stays for Markdown.
    else if (tag === 'figcaption') remove(element);
    else if (tag === 'figure' && element.querySelector('table')) renameToDiv(element);
    else if (tag === 'table' && /^(?:presentation|none)$/.test(element.getAttribute('role') ?? ''))
      renameToDiv(element);
    else if (MAIN_REMOVED.has(tag)) remove(element);
    else if (MAIN_UNWRAPPED.has(tag)) unwrap(element);
  }
  removeComments(root);
  for (const element of byTags(root, PRUNED_WHEN_EMPTY).reverse()) {
    if (!element.firstChild) remove(element);
  }
}

/** Pages rendered by scripts sometimes ship their text for script-less readers: that is the content we see. */
function isNoscriptContent(element: Element): boolean {
  return element.querySelector('p') !== null && trim(element.textContent).length > NOSCRIPT_CONTENT;
}

function renameToDiv(element: Element): void {
  const div = element.ownerDocument.createElement('div');
  while (element.firstChild) div.appendChild(element.firstChild);
  element.parentNode?.replaceChild(div, element);
}

function removeComments(root: Element): void {
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (let child = node.firstChild; child; ) {
      const next = child.nextSibling;
      if (child.nodeType === 8 || child.nodeType === 7) node.removeChild(child);
      else if (child.nodeType === 1) stack.push(child);
      child = next;
    }
  }
}
