// What a page holds that a 1.5B model reads past, said as one line of the compact step
// (docs/models.md, "Step profiles"): which row is the cheapest or dearest of the kind a part asks
// for (it takes the second paperback, not the cheaper third), which dated entry is the oldest or
// newest, and which closed section a question's answer is under. Comparing and matching are the
// loop's to do; the model acts on what the line says. Pure: no I/O.
import type { ElementInfo, OutlineEntry } from '../browser/types.js';
import type { JsonSchema } from '../model/types.js';
import { datesIn, isoDate } from './dates.js';
import { quote } from './form-values.js';
import type { DatedEntry } from './memory.js';
import { fieldWords, sameWord, taskWords } from './task-parts.js';

const LOWEST = /\b(?:cheapest|least expensive|lowest[- ]priced|lowest price|cheaper)\b/i;
const HIGHEST = /\b(?:most expensive|dearest|priciest|highest[- ]priced|highest price)\b/i;
/** The superlative and the words after it that say what kind ("cheapest paperback edition"), to a preposition. */
const KIND =
  /\b(?:cheapest|least expensive|lowest[- ]priced|lowest price|cheaper|most expensive|dearest|priciest|highest[- ]priced|highest price)\s+((?:(?!to\b|in\b|on\b|for\b|from\b|of\b|at\b|and\b|with\b)[\p{L}\p{N}-]+\s*){0,4})/iu;
/** A price as a page writes it: a currency sign before the amount ("€9.50"), else a sign or code after it ("9,50 EUR"). */
const SIGN_FIRST = /[€$£¥]\s?(\d[\d,]*(?:\.\d+)?)/;
const SIGN_AFTER = /(\d[\d,]*(?:\.\d+)?)\s?(?:€|(?:EUR|USD|GBP|CHF|kr)\b)/;

const CLICKS = new Set(['button', 'link']);

/** An element the compact view shows: its index, what it is, and the label the step reads. */
export interface ShownElement {
  index: number;
  info: ElementInfo;
  label: string;
}

/**
 * The line that names the row to click for a part that asks for the cheapest (or dearest) of a kind:
 * each button or link of the view read with its row (its table row's or list entry's words, else the
 * lines since the element before), the rows that say most of the kind's words compared by the price
 * they write. Undefined when the page does not say, or on a tie.
 */
export function superlativeLine(part: string, outline: OutlineEntry[], shown: ShownElement[]): string | undefined {
  const lowest = LOWEST.test(part);
  if (!lowest && !HIGHEST.test(part)) return undefined;
  const offered = new Map(shown.map((e) => [e.index, e]));
  const rows: Array<{ label: string; words: string[]; price: number; shown: string }> = [];
  let lines: string[] = [];
  for (const entry of outline) {
    if (entry.kind === 'text') {
      lines.push(entry.text);
      continue;
    }
    const shown = offered.get(entry.index);
    // A row of a table or a list is its own words (a header above it is not); else the lines since the element before.
    const row = entry.info.context ? `${entry.info.name} ${entry.info.context}` : [...lines, entry.info.name].join(' ');
    lines = [];
    if (!shown || !CLICKS.has(entry.info.role) || entry.info.disabled) continue;
    const price = SIGN_FIRST.exec(row) ?? SIGN_AFTER.exec(row);
    const amount = price?.[1];
    if (!price || !amount) continue;
    rows.push({
      label: shown.label,
      words: [...taskWords(row)],
      price: Number(amount.replace(/,/g, '')),
      shown: price[0],
    });
  }
  // The rows that say most of the kind's words ("paperback edition": the paperbacks) are compared.
  const kind = [...taskWords(KIND.exec(part)?.[1] ?? '')];
  const says = (r: (typeof rows)[number]) => kind.filter((w) => r.words.some((x) => sameWord(w, x)));
  const most = Math.max(0, ...rows.map((r) => says(r).length));
  const fits = rows.filter((r) => says(r).length === most);
  if (fits.length < 2) return undefined;
  const best = fits.reduce((a, b) => ((lowest ? b.price < a.price : b.price > a.price) ? b : a));
  if (fits.filter((r) => r.price === best.price).length > 1) return undefined;
  const asked = says(best);
  const which = `${lowest ? 'cheapest' : 'dearest'}${asked.length ? ` ${asked.join(' ')}` : ''}`;
  return `Of the prices the page shows, the ${which} is ${best.shown}: ${quote(best.label)}.`;
}

const OLDEST = /\b(?:oldest|earliest)\b/i;
const NEWEST = /\b(?:newest|latest|most recent)\b/i;
/** A link to the next page of a list. */
const NEXT_PAGE = /^(?:next(?: page)?|older(?: posts)?|›|»|>|→)$/i;

/** Whether a task asks for the oldest (-1) or the newest (1) of a dated list; 0 when neither. */
const datedOrder = (task: string) => (OLDEST.test(task) ? -1 : NEWEST.test(task) ? 1 : 0);

/** The oldest (`order` -1) or newest (1) of `entries`; undefined on a tie or when there are none. */
function extreme(entries: DatedEntry[], order: number): DatedEntry | undefined {
  const best = entries.reduce<DatedEntry | undefined>(
    (a, b) => (!a || (order < 0 ? b.iso < a.iso : b.iso > a.iso) ? b : a),
    undefined,
  );
  return best && entries.filter((e) => e.iso === best.iso).length === 1 ? best : undefined;
}

/** Each date a page writes (a line that is one, or holds one) with the line before it that holds none, its title. */
function datedEntries(outline: OutlineEntry[]): DatedEntry[] {
  const entries: DatedEntry[] = [];
  let title: string | undefined;
  for (const entry of outline) {
    const line = (entry.kind === 'text' ? entry.text : entry.info.name).trim();
    const iso = isoDate(line);
    const date = iso ? { iso, written: line } : datesIn(line)[0];
    if (!date) {
      if (line) title = line;
      continue;
    }
    const own = line.replace(date.written, '').replace(/^[\s·,:|–-]+|[\s·,:|–-]+$/g, '');
    const name = own.length >= 3 ? own : title;
    if (name) entries.push({ iso: date.iso, written: date.written, title: name });
    title = undefined;
  }
  return entries;
}

/**
 * What the run keeps of a dated list across its pages, for a task that asks for the oldest or the
 * newest: the extreme of what this page and the pages before showed.
 */
export function rememberDated(task: string, memory: { dated?: DatedEntry }, outline: OutlineEntry[]): void {
  const order = datedOrder(task);
  if (order === 0) return;
  const entries = datedEntries(outline);
  if (entries.length < 2 && !memory.dated) return;
  const best = extreme([...entries, ...(memory.dated ? [memory.dated] : [])], order);
  if (best) memory.dated = best;
}

/**
 * The line for a task that asks for the oldest or the newest of what pages list by date ("the title of
 * the oldest post on this blog"): the extreme of this page's entries and the pages' before (`seen`),
 * and, on a list's last page (page links, none to a next one), that it is the answer. Undefined
 * without two dated entries seen.
 */
export function datedLine(task: string, outline: OutlineEntry[], seen?: DatedEntry): string | undefined {
  const order = datedOrder(task);
  if (order === 0) return undefined;
  const entries = datedEntries(outline);
  if (entries.length < 2 && !seen) return undefined;
  const best = extreme([...entries, ...(seen ? [seen] : [])], order);
  if (!best) return undefined;
  const which = order < 0 ? 'oldest' : 'newest';
  const links = outline.flatMap((e) => (e.kind === 'element' && e.info.role === 'link' ? [e.info.name.trim()] : []));
  const paged = links.some((l) => /^(?:\d{1,3}|previous|prev|‹|«|<|←)$/i.test(l));
  const last = paged && !links.some((l) => NEXT_PAGE.test(l));
  const shown = seen ? 'the pages shown so far show' : 'this page shows';
  return last
    ? `This is the list's last page: the ${which} of all is ${best.written}: ${quote(best.title.slice(0, 80))}. Finish with it.`
    : `Of the dates ${shown}, the ${which} is ${best.written}: ${quote(best.title.slice(0, 80))}.`;
}

/**
 * For a question, the closed section (an accordion's header, a disclosure: `aria-expanded=false`)
 * that says most of the question's words, three at least and more than any other: the answer is
 * written in when it opens ("Can I return an item I have opened?" for "within how many days can I
 * return an item I have already opened?"). Undefined when none stands out.
 */
export function collapsedLine(task: string, shown: ShownElement[]): string | undefined {
  const said = [...taskWords(task)];
  const scored = shown
    .filter((e) => e.info.expanded === false && !e.info.disabled)
    .map((e) => ({ e, n: [...taskWords(e.info.name)].filter((w) => said.some((t) => sameWord(w, t))).length }))
    .sort((a, b) => b.n - a.n);
  const [best, second] = scored;
  if (!best || best.n < 3 || (second && second.n === best.n)) return undefined;
  return `The answer may be under ${quote(best.e.label)}: open it.`;
}

/**
 * For a run whose output schema asks for numbers by name ("seconds", "eggs", "days"), what the page
 * writes beside each name: a number followed by the word ("for 15 seconds", "3 eggs"), when the page
 * writes one such number alone. The 1.5B read "hold the reset button for 15 seconds" and said the page
 * did not answer how many seconds.
 */
export function numberLine(schema: JsonSchema, outline: OutlineEntry[], task = ''): string | undefined {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const sentences = outline
    .flatMap((e) => (e.kind === 'text' ? e.text.split(/(?<=[.!?;])\s+/) : []))
    .map((text) => ({ text, says: saysOf(text, task) }));
  const found: string[] = [];
  for (const [key, sub] of Object.entries(properties)) {
    if (sub?.type !== 'integer' && sub?.type !== 'number') continue;
    const words = fieldWords(key);
    const said = new Map<string, number>();
    for (const { text, says } of sentences)
      for (const m of text.matchAll(/(\d[\d,]*(?:\.\d+)?)(?:\s+|-)([A-Za-z]+)/g)) {
        const word = (m[2] as string).toLowerCase();
        const shown = `${m[1]} ${m[2]}`;
        if (words.some((k) => word.startsWith(k) || k.startsWith(word)))
          said.set(shown, Math.max(says, said.get(shown) ?? 0));
      }
    // Of two ("within 14 days" for opened items, "within 30 days" for unopened), the one whose
    // sentence says more of the task's words, when one does.
    const ranked = [...said].sort((a, b) => b[1] - a[1]);
    if (ranked.length === 1 || (ranked[0] && ranked[1] && ranked[0][1] > ranked[1][1]))
      found.push((ranked[0] as [string, number])[0]);
  }
  return found.length > 0 ? `The page says ${found.map(quote).join(', ')}.` : undefined;
}

/** How many of the task's words a sentence says, each word once (a word it only holds inside another, "opened" in "Unopened", is not said). */
function saysOf(sentence: string, task: string): number {
  const own = [...taskWords(sentence)];
  return [...taskWords(task)].filter((w) => own.some((o) => sameWord(o, w))).length;
}

/** Rows a line of the rows hint names at most. */
const MAX_ROWS = 12;

/**
 * For a question over a table ("everyone in the Engineering department", "invoices that are still
 * open"), the rows a cell of which is a word the task says, when that cell is in some rows and not
 * all: `Rows with "Open": INV-4103 | 2026-04-30 | €198.38 | Open; …`. The 1.5B read eight rows and
 * made up a list; a cell equal to the word, not one holding it ("Engineering Recruiting"), counts.
 */
export function rowsLine(task: string, outline: OutlineEntry[]): string | undefined {
  const lines = outline.flatMap((e) => (e.kind === 'text' && e.text.includes(' | ') ? [e.text] : []));
  // A first row without a digit is the header: its cells name columns, never a row to keep.
  const header = lines[0] && !/\d/.test(lines[0]) ? lines[0].toLowerCase().split(' | ') : [];
  const rows = header.length > 0 ? lines.slice(1) : lines;
  if (rows.length < 2) return undefined;
  const cells = rows.map((r) => r.split(' | ').map((c) => c.trim().toLowerCase()));
  const said = [...taskWords(task)].filter((w) => !header.some((h) => sameWord(h.trim(), w)));
  for (const word of said) {
    const hits = rows.filter((_, i) =>
      cells[i]?.some((c) => c === word || (c.length >= 4 && sameWord(c, word) && !c.includes(' '))),
    );
    if (hits.length === 0 || hits.length === rows.length) continue;
    const shown = hits.slice(0, MAX_ROWS).join('; ');
    const more = hits.length > MAX_ROWS ? ` and ${hits.length - MAX_ROWS} more` : '';
    return `Rows with ${quote(word)} (${hits.length}): ${shown}${more}.`;
  }
  return undefined;
}

/** A name a list files things under: capitals and a dash, or a hash, then digits ("A-1093", "INV-4103", "#4412"). */
const CODE = /(?<![\p{L}\p{N}-])((?:\p{Lu}{1,5}-|#)(\d{3,}))(?![\p{N}])/gu;
/** A link back to the page before of a list. */
const PREVIOUS_PAGE = /^(?:prev(?:ious)?(?: page)?|newer(?: posts)?|‹|«|<|←)$/i;

/**
 * For a part that names a thing by its code ("order A-1093"): the table row that shows it; else, when a
 * paged list does not show it on this page,
 * among other things of the same kind ("A-1130" … "A-1121"), the link to the page that holds it: the
 * next page, or the one before when the codes this page shows run past it the other way. The 1.5B
 * looked for A-1093 on the first page of orders and said there was none. Undefined when the page shows
 * the code, shows no others like it, or has no link to turn the page.
 */
export function pagedLine(part: string, outline: OutlineEntry[], shown: ShownElement[]): string | undefined {
  const text = outline.map((e) => (e.kind === 'text' ? e.text : e.info.name)).join('\n');
  const codes = [...part.matchAll(CODE)];
  // Shown in a table's row: that row, read whole (the 1.5B paged on past the order it was asked about).
  for (const m of codes) {
    const row = outline.find((e) => e.kind === 'text' && e.text.includes(' | ') && e.text.includes(m[1] as string));
    if (row?.kind === 'text') return `The row of ${quote(m[1] as string)}: ${row.text.slice(0, 200)}.`;
  }
  const wanted = codes.find((m) => !text.includes(m[1] as string));
  if (!wanted) return undefined;
  const [code, digits] = [wanted[1] as string, Number(wanted[2])];
  const prefix = code.slice(0, code.length - (wanted[2] as string).length);
  const listed = [...text.matchAll(CODE)].filter((m) => (m[1] as string).startsWith(prefix)).map((m) => Number(m[2]));
  if (listed.length < 2) return undefined;
  const links = shown.filter((e) => e.info.role === 'link' && !e.info.disabled);
  const next = links.find((e) => NEXT_PAGE.test(e.info.name.trim()));
  const previous = links.find((e) => PREVIOUS_PAGE.test(e.info.name.trim()));
  // The way the list runs on: down when its codes fall down the page, up when they rise.
  const falling = (listed[0] as number) > (listed.at(-1) as number);
  const [low, high] = [Math.min(...listed), Math.max(...listed)];
  const behind = falling ? digits > high : digits < low;
  const turn = behind ? previous : next;
  if (!turn) return undefined;
  return `${quote(code)} is not on this page; the list goes on: link ${quote(turn.label)}.`;
}

/**
 * Whether a task asks for the extreme of what a page lists (the oldest, the newest, the cheapest, the
 * dearest): comparing is the loop's (the dated and superlative lines), not a reading of one page's text.
 * Asked alone, the 1.5B named one of a blog's second page's posts the oldest, and a category's own
 * name its most expensive item.
 */
export function asksExtreme(task: string): boolean {
  return datedOrder(task) !== 0 || LOWEST.test(task) || HIGHEST.test(task);
}

/**
 * For a run whose output schema asks for numbers by name, the cell a table gives each: the one row a
 * word or code of the task names ("Team", "A-1093") under the one column whose header says most of the
 * field's name ("Requests per minute" for `requestsPerMinute`). The 1.5B, shown "Rows with "team" (1):
 * Team | 300 | 20 | 100,000", went back to the page before.
 */
export function cellLine(schema: JsonSchema, outline: OutlineEntry[], task: string): string | undefined {
  const lines = outline.flatMap((e) => (e.kind === 'text' && e.text.includes(' | ') ? [e.text] : []));
  const at = lines.findIndex((l) => !/\d/.test(l));
  if (at < 0) return undefined;
  const header = (lines[at] as string).split(' | ').map((h) => h.trim());
  const rows = lines
    .slice(at + 1)
    .map((l) => l.split(' | ').map((c) => c.trim()))
    .filter((cells) => cells.length === header.length);
  const said = taskWords(task);
  const asked = task.toLowerCase();
  const named = rows.filter((cells) =>
    cells.some((c) => (c.length >= 3 && asked.includes(c.toLowerCase())) || [...taskWords(c)].some((w) => said.has(w))),
  );
  const row = named.length === 1 ? named[0] : undefined;
  if (!row) return undefined;
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const found: string[] = [];
  for (const [key, sub] of Object.entries(properties)) {
    if (sub?.type !== 'integer' && sub?.type !== 'number') continue;
    const words = fieldWords(key);
    const scores = header.map((h) => words.filter((k) => [...taskWords(h)].some((w) => sameWord(w, k))).length);
    const best = Math.max(0, ...scores);
    const columns = scores.flatMap((s, j) => (s === best ? [j] : []));
    const column = best > 0 && columns.length === 1 ? (columns[0] as number) : undefined;
    if (column !== undefined) found.push(`${quote(header[column] as string)} is ${quote(row[column] as string)}`);
  }
  return found.length > 0 ? `In the row of ${quote(row[0] as string)}, ${found.join(', ')}.` : undefined;
}

/** A breadcrumb's separator, alone or before the page's own name ("› Felco pruning shears"). */
const CRUMB = /^\s*[›»>/|]\s*/;

/**
 * The link of a breadcrumb trail (`Home › Garden › Hand tools › Felco pruning shears`) to the
 * section the page is in: the last of two or more links each followed by a separator, when the page's
 * own name follows the last. A small model asked for "the category it is listed in" clicks Home.
 */
export function breadcrumbSection(outline: OutlineEntry[]): number | undefined {
  let run: number[] = [];
  for (let i = 0; i < outline.length; i++) {
    const e = outline[i] as OutlineEntry;
    const next = outline[i + 1];
    if (e.kind === 'element' && e.info.role === 'link' && next?.kind === 'text' && CRUMB.test(next.text)) {
      run.push(e.index);
      const own = next.text.replace(CRUMB, '').trim();
      if (own && run.length >= 2) return e.index;
      i++;
    } else run = [];
  }
  return undefined;
}

/** The breadcrumb's section link for a part that asks for it ("go to the category it is listed in"). */
export function sectionFor(part: string | undefined, outline: OutlineEntry[]): number | undefined {
  return part && /\b(?:categor|section|department|collection)/i.test(part) ? breadcrumbSection(outline) : undefined;
}
