import { parseHTML } from 'linkedom';

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;

/**
 * `HTMLTableElement.rows`, which linkedom lacks (its parser makes a table a plain HTMLElement)
 * and turndown's table rule reads: the rows of the table itself and of its head, bodies and
 * foot (not of nested tables), in document order; undefined on other elements.
 */
function addTableRows(): void {
  const { document } = parseHTML('<html></html>');
  const prototype = Object.getPrototypeOf(document.createElement('table')) as object;
  if ('rows' in prototype) return;
  Object.defineProperty(prototype, 'rows', {
    get(this: Element) {
      if (this.localName !== 'table') return undefined;
      const rows: Element[] = [];
      for (const child of Array.from(this.children)) {
        if (child.localName === 'tr') rows.push(child);
        else if (/^t(?:head|body|foot)$/.test(child.localName))
          for (const row of Array.from(child.children)) if (row.localName === 'tr') rows.push(row);
      }
      return rows;
    },
  });
}
addTableRows();

/**
 * Parses a page into a DOM. linkedom only builds a body for markup that carries an <html>
 * element, so bare fragments are wrapped; everything else is taken as written.
 */
export function parseDocument(html: string): Document {
  // Line breaks normalised first, as the HTML standard's input stream does (code keeps no \r).
  const lines = html.includes('\r') ? html.replace(/\r\n?/g, '\n') : html;
  const markup = /<html[\s>]/i.test(lines) ? lines : `<html><body>${lines}</body></html>`;
  return parseHTML(closeHeadingsLikeBrowsers(markup)).document as unknown as Document;
}

/**
 * In HTML any </h1>...</h6> closes the open heading; linkedom's parser ignores a mismatched one
 * and lets the heading swallow the rest of the page, so the end tags are matched up first.
 */
function closeHeadingsLikeBrowsers(html: string): string {
  let open: string | undefined;
  return html.replace(/<(\/?)h([1-6])(?=[\s>/])/gi, (tag, closing: string, level: string) => {
    if (!closing) {
      open = level;
      return tag;
    }
    const matched = open ?? level;
    open = undefined;
    return `</h${matched}`;
  });
}

/** The element that holds the visible page: <body> when the parser made one, else the root. */
export function contentRoot(document: Document): Element | undefined {
  return document.querySelector('body') ?? document.documentElement ?? undefined;
}

/** Collapses white space runs and trims, the way text is compared throughout. */
export function trim(text: string | null | undefined): string {
  return text ? text.replace(/\s+/g, ' ').trim() : '';
}

/** `trim(text).length` without building the collapsed string (pages can be megabytes). */
export function collapsedLength(text: string | null | undefined): number {
  if (!text) return 0;
  let length = 0;
  let pendingSpace = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const space = code === 32 || (code >= 9 && code <= 13) || code === 160 || (code > 255 && /\s/.test(text[i]!));
    if (space) pendingSpace = length > 0;
    else {
      if (pendingSpace) length++;
      pendingSpace = false;
      length++;
    }
  }
  return length;
}

export function tagOf(node: Node): string {
  return node.nodeType === ELEMENT_NODE ? (node as Element).localName.toLowerCase() : '';
}

export function isElement(node: Node | null | undefined): node is Element {
  return node?.nodeType === ELEMENT_NODE;
}

export function textOf(node: Node): string {
  return trim(node.textContent);
}

/** Replaces an element by its children, keeping their text in place. */
export function unwrap(element: Element): void {
  const parent = element.parentNode;
  if (!parent) return;
  while (element.firstChild) parent.insertBefore(element.firstChild, element);
  parent.removeChild(element);
}

export function remove(node: Node): void {
  node.parentNode?.removeChild(node);
}

/** Every descendant element in document order, captured up front so callers may mutate the tree. */
export function descendants(root: Element): Element[] {
  const out: Element[] = [];
  const stack: Element[] = [];
  for (let child = root.lastElementChild; child; child = child.previousElementSibling) stack.push(child);
  while (stack.length > 0) {
    const element = stack.pop()!;
    out.push(element);
    for (let child = element.lastElementChild; child; child = child.previousElementSibling) stack.push(child);
  }
  return out;
}

/** Descendants with one of the tag names, document order. */
export function byTags(root: Element, tags: ReadonlySet<string>): Element[] {
  return descendants(root).filter((element) => tags.has(tagOf(element)));
}

/** Removes the given elements, skipping those already detached with an ancestor. */
export function removeAll(elements: Iterable<Element>): void {
  for (const element of elements) remove(element);
}

/** The first of the named attributes in source order, as XPath `@a|@b` reads it. */
export function firstAttribute(element: Element, names: readonly string[]): string | undefined {
  for (const attribute of Array.from(element.attributes)) {
    if (names.includes(attribute.name.toLowerCase())) return attribute.value;
  }
  return undefined;
}

/**
 * Puts a space between links that touch (`<a>Home</a><a>About</a>` in minified menus): styles
 * set them apart on the page, and without it their words fuse in every format.
 */
export function spaceAdjacentLinks(root: Element): void {
  for (const link of Array.from(root.getElementsByTagName('a'))) {
    const next = link.nextSibling;
    if (next && tagOf(next) === 'a') link.after(root.ownerDocument.createTextNode(' '));
  }
}
