// A PDF's lines read into blocks: headings by size (and weight), paragraphs
// joined across line breaks, pages and hyphens, lists by their markers or
// their indentation, tables and text columns by where their cells sit.
import type { Block, Run } from '../blocks.js';
import { type Line, sizeKey } from './lines.js';
import { findRegions } from './tables.js';

export interface LayoutContext {
  /** The size most of the document's text is set in. */
  bodySize: number;
  /** Sizes larger than the body's, largest first: a heading's level is its place here. */
  headingSizes: number[];
  /** Whether a font is a bold one (known only for the pages that needed to ask). */
  bold: (font: string) => boolean;
  /** The document's words, lower-cased: a word broken at a hyphen is joined when it appears whole. */
  vocabulary: ReadonlySet<string>;
}

export interface LaidPage {
  number: number;
  width: number;
  lines: Line[];
}

const MARKER = /^(?:[•●○◦▪■□‣⁃∙·*–-]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s+/;
const ORDERED = /^\(?(?:\d{1,3}|[a-z])[.)]\s+/;
const SENTENCE_END = /[.!?:;]["'”’)]?$/;

interface Group {
  lines: Line[];
  /** The line that starts it carries a list marker. */
  marked: boolean;
  /** It is one item of a list without markers (its lines indented, its last one short). */
  indented: boolean;
}

interface Column {
  left: number;
  right: number;
}

/** A line is set in from its column: a list without markers, or a quote. */
const indentedIn = (line: Line, column: Column) => line.x0 > column.left + 2 * line.size;

function columnOf(lines: Line[], bodySize: number): Column {
  const body = lines.filter((l) => l.size === bodySize);
  const from = body.length > 0 ? body : lines;
  return { left: Math.min(...from.map((l) => l.x0)), right: Math.max(...from.map((l) => l.x1)) };
}

/** Whether `line` begins a new block after `prev` (both of one flow of text). */
function breaksBefore(prev: Line, line: Line, group: Group, column: Column): boolean {
  if (line.size !== prev.size) return true;
  if (MARKER.test(line.text)) return true;
  if (prev.page !== line.page)
    return SENTENCE_END.test(prev.text) || prev.x1 < column.right - 3 * line.size || line.x0 > column.left + line.size;
  if (line.y - prev.y > 1.6 * line.size) return true;
  const bothIndented = indentedIn(prev, column) && indentedIn(line, column) && Math.abs(line.x0 - prev.x0) < 1;
  // One item after another of a list without markers: the item before ended short.
  if (bothIndented) return prev.x1 < column.right - 3 * line.size;
  // A first line set in: a new paragraph, unless it is the text after a list item's marker.
  if (!group.marked && line.x0 > prev.x0 + 0.8 * line.size) return true;
  if (group.marked && line.x0 < group.lines[0]!.x0 - 0.5 * line.size) return true;
  return indentedIn(line, column) !== indentedIn(prev, column);
}

function groupsOf(flow: Line[], column: Column): Group[] {
  const groups: Group[] = [];
  let current: Group | undefined;
  for (const line of flow) {
    const prev = current?.lines[current.lines.length - 1];
    if (!current || !prev || breaksBefore(prev, line, current, column)) {
      current = { lines: [line], marked: MARKER.test(line.text), indented: indentedIn(line, column) };
      groups.push(current);
    } else current.lines.push(line);
  }
  return groups;
}

/** The line's pieces as runs, linked pieces apart, with the spaces their gaps stand for. */
function runsOf(line: Line): Run[] {
  const runs: Run[] = [];
  let end = Number.NEGATIVE_INFINITY;
  for (const item of line.items) {
    const last = runs[runs.length - 1];
    const gap = item.x - end;
    let text = item.str;
    if (last && gap > 0.12 * item.size && !/\s$/.test(last.text) && !/^\s/.test(text)) text = ` ${text}`;
    end = Math.max(end, item.x + item.width);
    if (last && last.href === item.href) last.text += text;
    else runs.push(item.href ? { text, href: item.href } : { text });
  }
  for (const r of runs) r.text = r.text.replace(/\s+/g, ' ');
  return runs;
}

/** Lines joined into one run list: a space between lines, or none where a hyphen broke a word. */
function joinLines(lines: Line[], vocabulary: ReadonlySet<string>): Run[] {
  const out: Run[] = [];
  for (const line of lines) {
    const runs = runsOf(line);
    const last = out[out.length - 1];
    const first = runs[0];
    if (last && first) {
      last.text = last.text.replace(/\s+$/, '');
      first.text = first.text.replace(/^\s+/, '');
      const broken = /(\p{L}+)([-\u00ad])$/u.exec(last.text);
      const next = /^(\p{Ll}+)/u.exec(first.text);
      if (broken && next) {
        // A soft hyphen always goes; a hard one only when the word is elsewhere whole (not a compound).
        const whole = `${broken[1]}${next[1]}`.toLowerCase();
        if (broken[2] === '\u00ad' || vocabulary.has(whole)) last.text = last.text.slice(0, -1);
      } else last.text += ' ';
    }
    for (const r of runs) {
      const prev = out[out.length - 1];
      if (prev && prev.href === r.href) prev.text += r.text;
      else out.push(r);
    }
  }
  for (const r of out) r.text = r.text.replace(/\u00ad/g, '');
  return out;
}

const stripMarker = (runs: Run[]): Run[] => {
  const [first, ...rest] = runs;
  if (!first) return runs;
  return [{ ...first, text: first.text.replace(MARKER, '') }, ...rest];
};

function blocksOf(groups: Group[], ctx: LayoutContext): Block[] {
  const blocks: Block[] = [];
  for (let i = 0; i < groups.length; i++) {
    const group = groups[i] as Group;
    const first = group.lines[0] as Line;
    const level = ctx.headingSizes.indexOf(first.size);
    if (level >= 0) {
      blocks.push({ kind: 'heading', level: Math.min(6, level + 1), runs: joinLines(group.lines, ctx.vocabulary) });
      continue;
    }
    if (group.marked) {
      const ordered = ORDERED.test(first.text);
      const items: Run[][] = [];
      let j = i;
      for (; j < groups.length && groups[j]?.marked && ORDERED.test(groups[j]!.lines[0]!.text) === ordered; j++)
        items.push(stripMarker(joinLines(groups[j]!.lines, ctx.vocabulary)));
      blocks.push({ kind: 'list', ordered, items });
      i = j - 1;
      continue;
    }
    if (group.indented) {
      let j = i;
      while (j < groups.length && groups[j]?.indented && !groups[j]?.marked && groups[j]!.lines[0]!.size === first.size)
        j++;
      if (j - i >= 2) {
        blocks.push({
          kind: 'list',
          ordered: false,
          items: groups.slice(i, j).map((g) => joinLines(g.lines, ctx.vocabulary)),
        });
        i = j - 1;
        continue;
      }
    }
    const runs = joinLines(group.lines, ctx.vocabulary);
    const text = runs.map((r) => r.text).join('');
    // A short line on its own, set in bold at the body's size and not a sentence: a heading.
    const boldHeading =
      group.lines.length === 1 &&
      first.size <= ctx.bodySize &&
      text.split(/\s+/).length <= 15 &&
      !SENTENCE_END.test(text) &&
      first.items.every((item) => !item.str.trim() || ctx.bold(item.font));
    if (boldHeading) blocks.push({ kind: 'heading', level: Math.min(6, ctx.headingSizes.length + 1), runs });
    else blocks.push({ kind: 'paragraph', runs });
  }
  return blocks;
}

/**
 * The document's blocks, page after page. A paragraph that runs on to the
 * next page is one paragraph; tables and text columns are found per page.
 */
export function layoutDocument(pages: LaidPage[], ctx: LayoutContext): Block[] {
  const blocks: Block[] = [];
  // Lines of running text wait here until a table (or the end) closes their flow.
  let flow: Line[] = [];
  let column: Column = { left: 0, right: 0 };
  const closeFlow = () => {
    if (flow.length > 0) blocks.push(...blocksOf(groupsOf(flow, column), ctx));
    flow = [];
  };
  for (const page of pages) {
    if (page.lines.length === 0) continue;
    const pageColumn = columnOf(page.lines, ctx.bodySize);
    column = pageColumn;
    const regions = findRegions(page.lines, page.width);
    let at = 0;
    for (const region of regions) {
      flow.push(...page.lines.slice(at, region.start));
      if (region.kind === 'table') {
        closeFlow();
        blocks.push({ kind: 'table', rows: region.rows });
      } else {
        closeFlow();
        // Each text column is a flow of its own, measured on its own (its indents, its right edge).
        for (const lines of region.columns) {
          column = columnOf(lines, ctx.bodySize);
          flow.push(...lines);
          closeFlow();
        }
        column = pageColumn;
      }
      at = region.end;
    }
    flow.push(...page.lines.slice(at));
  }
  closeFlow();
  return blocks;
}

/** The body size (most characters) and the larger sizes that make headings, largest first. */
export function sizesOf(lines: Line[]): { bodySize: number; headingSizes: number[] } {
  const chars = new Map<number, number>();
  for (const line of lines) chars.set(line.size, (chars.get(line.size) ?? 0) + line.text.length);
  let bodySize = 0;
  let most = -1;
  for (const [size, n] of chars)
    if (n > most) {
      bodySize = size;
      most = n;
    }
  const headingSizes = [...chars.keys()]
    .filter((s) => s >= sizeKey(bodySize * 1.12))
    .sort((a, b) => b - a)
    .slice(0, 6);
  return { bodySize, headingSizes };
}
