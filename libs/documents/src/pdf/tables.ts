// Tables, and pages set in columns, read from where a page's text sits:
// lines split into cells at wide gaps, and cells that line up from row to row
// make the columns. Wide columns of prose are a page's text columns, not a
// table: they are read one column after the other.
import { joinItems, type Line, type Segment } from './lines.js';

export type Region =
  | { kind: 'table'; start: number; end: number; rows: string[][] }
  | { kind: 'columns'; start: number; end: number; columns: Line[][] };

interface Column {
  x0: number;
  x1: number;
}

/** Lines of a run with one cell each, between lines with more, that still belong to it. */
const MAX_SINGLE_IN_RUN = 2;

function columnsOf(segments: Segment[]): Column[] {
  const sorted = [...segments].sort((a, b) => a.x0 - b.x0);
  const columns: Column[] = [];
  for (const s of sorted) {
    const last = columns[columns.length - 1];
    if (last && s.x0 <= last.x1 + 1) last.x1 = Math.max(last.x1, s.x1);
    else columns.push({ x0: s.x0, x1: s.x1 });
  }
  return columns;
}

function columnIndex(columns: Column[], s: Segment): number {
  const mid = (s.x0 + s.x1) / 2;
  let best = 0;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const [i, c] of columns.entries()) {
    const distance = mid < c.x0 ? c.x0 - mid : mid > c.x1 ? mid - c.x1 : 0;
    if (distance < bestDistance) {
      best = i;
      bestDistance = distance;
    }
  }
  return best;
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** A line made of one column's segments of a line: a text column's own line. */
function sliceLine(line: Line, segments: Segment[]): Line {
  const items = segments.flatMap((s) => s.items);
  return {
    ...line,
    items,
    segments,
    x0: Math.min(...segments.map((s) => s.x0)),
    x1: Math.max(...segments.map((s) => s.x1)),
    text: joinItems(items).trim(),
  };
}

function regionOf(lines: Line[], start: number, end: number, pageWidth: number): Region | undefined {
  const run = lines.slice(start, end);
  const multi = run.filter((l) => l.segments.length >= 2);
  if (multi.length < 2) return undefined;
  const columns = columnsOf(multi.flatMap((l) => l.segments));
  if (columns.length < 2) return undefined;
  const cells = run.map((line) => {
    const row: Segment[][] = columns.map(() => []);
    for (const s of line.segments) row[columnIndex(columns, s)]?.push(s);
    return row;
  });
  // Prose set in columns: wide columns of long lines of words.
  const wide = columns.filter((c) => c.x1 - c.x0 > 0.3 * pageWidth).length;
  const cellWords = cells.flat().filter((c) => c.length > 0);
  const wordy = cellWords.reduce((n, c) => n + words(c.map((s) => joinItems(s.items)).join(' ')), 0) / cellWords.length;
  if (wide >= 2 && wordy >= 5) return textColumns(lines, start, end, columns);
  const rows: string[][] = [];
  let previous: Line | undefined;
  for (const [i, line] of run.entries()) {
    const row = (cells[i] ?? []).map((c) => c.map((s) => joinItems(s.items).trim()).join(' '));
    const filled = row.filter(Boolean).length;
    const last = rows[rows.length - 1];
    // A cell's text wrapped onto a line of its own: it continues the row above.
    const wrapped =
      last && previous && !row[0] && filled < columns.length / 2 + 0.5 && line.y - previous.y < 1.5 * line.size;
    if (wrapped) {
      for (const [k, text] of row.entries()) if (text) last[k] = last[k] ? `${last[k]} ${text}` : text;
    } else rows.push(row);
    previous = line;
  }
  if (rows.length < 2 || rows.filter((r) => r.filter(Boolean).length >= 2).length < 2) return undefined;
  return { kind: 'table', start, end, rows };
}

/**
 * Text columns: the run of lines, widened to the lines around it that sit
 * inside one column (a column's short last line, a column that starts
 * higher), each column's lines in order.
 */
function textColumns(lines: Line[], start: number, end: number, columns: Column[]): Region {
  const inOne = (line: Line) => columns.some((c) => line.x0 >= c.x0 - line.size && line.x1 <= c.x1 + line.size);
  while (start > 0 && inOne(lines[start - 1] as Line)) start--;
  while (end < lines.length && inOne(lines[end] as Line)) end++;
  const split = columns.map((_, k) =>
    lines.slice(start, end).flatMap((line) => {
      const mine = line.segments.filter((s) => columnIndex(columns, s) === k);
      return mine.length > 0 ? [sliceLine(line, mine)] : [];
    }),
  );
  return { kind: 'columns', start, end, columns: split };
}

/** The tables and text columns of a page's lines, as index ranges that do not overlap. */
export function findRegions(lines: Line[], pageWidth: number): Region[] {
  const regions: Region[] = [];
  let i = 0;
  while (i < lines.length) {
    if ((lines[i]?.segments.length ?? 0) < 2) {
      i++;
      continue;
    }
    // The run: lines of several cells, with at most a couple of one-cell lines between them,
    // at a steady pitch (a big gap ends a table).
    let end = i + 1;
    let lastMulti = i;
    while (end < lines.length) {
      const line = lines[end] as Line;
      const prev = lines[end - 1] as Line;
      if (line.y - prev.y > 3 * Math.max(line.size, prev.size)) break;
      if (line.segments.length >= 2) lastMulti = end;
      else if (end - lastMulti > MAX_SINGLE_IN_RUN) break;
      end++;
    }
    end = lastMulti + 1;
    const region = regionOf(lines, i, end, pageWidth);
    if (region) {
      regions.push(region);
      i = end;
    } else i++;
  }
  return regions;
}
