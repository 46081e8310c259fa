// The model's view of a page, put together from the scans of its frames
// (page-script.ts): each child frame's lines under its iframe, indented; the
// elements numbered 1..count in that order; a star on each element the
// previous observation of the same page did not have; the whole bounded.
import type { ElementInfo, PageItem } from './page-script.js';

/** The list's entries in page order, as data: what the compact view of a page is drawn from. */
export type OutlineEntry =
  | { kind: 'element'; index: number; depth: number; info: ElementInfo; key: string; fresh: boolean }
  | { kind: 'text'; depth: number; text: string };

/** One frame's scan, with the scans of the child frames shown in it. */
export interface FrameNode<S> {
  /** What this frame's element keys are prefixed with: '' for the page, the frame's URL for a child frame. */
  key: string;
  items: PageItem[];
  /** Items the page script left out at its bounds. */
  cut: number;
  /** Child frames by the slot of their iframe in this frame's scan. */
  children: Map<number, FrameNode<S>>;
  /** Where this frame's elements are kept (the driver's handle on the scan). */
  source: S;
}

export interface ElementList<S> {
  /** The lines as the model reads them. */
  elements: string;
  /** The same lines without stars: the same state gives the same text. */
  plain: string;
  /** The key of each indexed element, in index order (with its occurrence, so repeats stay apart). */
  keys: string[];
  /** Where element `i` lives: `targets[i - 1]`. */
  targets: Array<{ source: S; slot: number }>;
  /** The same entries as data (frames' own lines left out). */
  outline: OutlineEntry[];
}

const INDENT = '  ';

/**
 * Numbers and joins the frames' items. `previous` is the key set of the previous observation of the
 * same page (undefined: no stars); past `maxChars` the list stops with a line saying what was cut.
 */
export function renderList<S>(
  root: FrameNode<S>,
  previous: ReadonlySet<string> | undefined,
  maxChars: number,
): ElementList<S> {
  const lines: string[] = [];
  const plain: string[] = [];
  const keys: string[] = [];
  const targets: Array<{ source: S; slot: number }> = [];
  const outline: OutlineEntry[] = [];
  const seen = new Map<string, number>();
  let chars = 0;
  let full = false;
  let cutElements = 0;
  let cutLines = 0;

  const add = (line: string, bare: string): boolean => {
    if (full || chars + line.length + 1 > maxChars) {
      full = true;
      return false;
    }
    lines.push(line);
    plain.push(bare);
    chars += line.length + 1;
    return true;
  };

  const visit = (node: FrameNode<S>, base: number): void => {
    cutLines += node.cut;
    for (const item of node.items) {
      const indent = INDENT.repeat(base + item.depth);
      if (item.kind === 'text') {
        if (!add(indent + item.text, indent + item.text)) cutLines++;
        else outline.push({ kind: 'text', depth: base + item.depth, text: item.text });
        continue;
      }
      if (item.kind === 'frame') {
        if (!add(indent + item.line, indent + item.line)) cutLines++;
        const child = node.children.get(item.slot);
        if (child) visit(child, base + item.depth + 1);
        continue;
      }
      const index = targets.length + 1;
      const identity = `${node.key}|${item.key}`;
      const occurrence = (seen.get(identity) ?? 0) + 1;
      seen.set(identity, occurrence);
      const key = `${identity}#${occurrence}`;
      const star = previous !== undefined && !previous.has(key) ? '*' : '';
      if (!add(`${indent}${star}[${index}]${item.line}`, `${indent}[${index}]${item.line}`)) {
        cutElements++;
        continue;
      }
      keys.push(key);
      targets.push({ source: node.source, slot: item.slot });
      outline.push({ kind: 'element', index, depth: base + item.depth, info: item.info, key, fresh: star !== '' });
    }
  };
  visit(root, 0);

  if (cutElements > 0 || cutLines > 0) {
    const note = `… the list stops here: ${cutElements} more elements and ${cutLines} more lines not shown; scroll, or extract to read the page`;
    lines.push(note);
    plain.push(note);
  }
  return { elements: lines.join('\n'), plain: plain.join('\n'), keys, targets, outline };
}
