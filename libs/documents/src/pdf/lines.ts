// A PDF page's text as positioned pieces, put back into lines in reading
// order. PDFs keep no paragraphs, lists or tables, only glyph runs at
// coordinates: everything else is read from where the runs sit.

/** A run of text where the page draws it: `x` and `y` (its baseline) in points from the top left. */
export interface TextItem {
  str: string;
  x: number;
  y: number;
  width: number;
  /** The font size in points. */
  size: number;
  font: string;
  href?: string;
}

export interface PageText {
  /** 1-based. */
  number: number;
  width: number;
  height: number;
  items: TextItem[];
}

/** Pieces of a line that sit close together; a line of a table has one per cell. */
export interface Segment {
  items: TextItem[];
  x0: number;
  x1: number;
}

export interface Line {
  page: number;
  y: number;
  x0: number;
  x1: number;
  /** The size and font most of its characters are set in. */
  size: number;
  font: string;
  items: TextItem[];
  segments: Segment[];
  text: string;
}

/** Sizes are compared rounded to half a point: a PDF's "12" is often 11.9552. */
export const sizeKey = (size: number) => Math.round(size * 2) / 2;

/** Whitespace between two pieces wider than this (in ems) splits a line into cells. */
const CELL_GAP_EM = 0.45;
/** A gap wider than this (in ems) between two pieces of a line is a space, if neither has one. */
const SPACE_GAP_EM = 0.12;

function dominant<T>(items: TextItem[], key: (i: TextItem) => T): T {
  const weight = new Map<T, number>();
  for (const item of items) weight.set(key(item), (weight.get(key(item)) ?? 0) + item.str.length);
  let best: T = key(items[0] as TextItem);
  let most = -1;
  for (const [k, w] of weight)
    if (w > most) {
      best = k;
      most = w;
    }
  return best;
}

/** The pieces of a line, in order, joined with the spaces their gaps stand for. */
export function joinItems(items: readonly TextItem[]): string {
  let out = '';
  let end = Number.NEGATIVE_INFINITY;
  for (const item of items) {
    const gap = item.x - end;
    if (out && gap > SPACE_GAP_EM * item.size && !/\s$/.test(out) && !/^\s/.test(item.str)) out += ' ';
    out += item.str;
    end = Math.max(end, item.x + item.width);
  }
  return out.replace(/\s+/g, ' ');
}

function segmentsOf(items: TextItem[]): Segment[] {
  const segments: Segment[] = [];
  let current: Segment | undefined;
  for (const item of items) {
    // Blank pieces only stand for the gap they cover; the gap itself decides.
    if (!item.str.trim()) continue;
    const gap = current ? item.x - current.x1 : 0;
    if (!current || gap > CELL_GAP_EM * item.size) {
      current = { items: [item], x0: item.x, x1: item.x + item.width };
      segments.push(current);
    } else {
      current.items.push(item);
      current.x1 = Math.max(current.x1, item.x + item.width);
    }
  }
  return segments;
}

/**
 * The page's lines, top to bottom: pieces whose baselines are within a
 * third of their size of each other share a line, left to right. Turned
 * text (a diagonal watermark, a rotated label) is left out by the caller.
 */
export function linesOf(page: PageText): Line[] {
  const items = page.items.filter((i) => i.str.length > 0 && i.size > 0).sort((a, b) => a.y - b.y || a.x - b.x);
  const groups: TextItem[][] = [];
  for (const item of items) {
    const last = groups[groups.length - 1];
    const anchor = last?.[0];
    if (last && anchor && Math.abs(item.y - anchor.y) <= 0.35 * Math.min(anchor.size, item.size)) last.push(item);
    else groups.push([item]);
  }
  const lines: Line[] = [];
  for (const group of groups) {
    group.sort((a, b) => a.x - b.x);
    const visible = group.filter((i) => i.str.trim());
    if (visible.length === 0) continue;
    const text = joinItems(group).trim();
    lines.push({
      page: page.number,
      y: visible[0]?.y ?? 0,
      x0: Math.min(...visible.map((i) => i.x)),
      x1: Math.max(...visible.map((i) => i.x + i.width)),
      size: dominant(visible, (i) => sizeKey(i.size)),
      font: dominant(visible, (i) => i.font),
      items: group,
      segments: segmentsOf(group),
      text,
    });
  }
  return lines;
}
