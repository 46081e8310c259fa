// A calendar widget as a small model meets it (docs/models.md, "Step profiles"): thirty day
// buttons of a month that is not the task's, and a "Next month" arrow it does not think of
// pressing four times. The step reads the calendar off the page's elements: the days (buttons
// named by a whole date, "17 March 2027", or by their number under a "March 2027" heading), the
// month most of them are in, and its arrows; and the day or month the task asks for that no box
// holds yet. Then the view keeps only what leads there: the arrow while the month is wrong, the
// task's day once it shows. Pure: no I/O.
import type { OutlineEntry } from '../browser/types.js';
import { datesIn, isoDate } from './dates.js';

const WEEKDAYS = 'Sunday Monday Tuesday Wednesday Thursday Friday Saturday'.split(' ');
const MONTHS = 'January February March April May June July August September October November December'.split(' ');
/** Days a list of dated elements has at least to be a calendar. */
const MIN_DAYS = 7;
/** Days numbered 1, 2, 3... under a month's heading a calendar has at least to be read as one. */
const MIN_NUMBERED = 20;
/** Roles a day of a calendar has: what a click picks. */
const DAY_ROLES = new Set(['button', 'link', 'other', 'option', 'tab']);

const NEXT = /^(?:next(?: month)?|›|»|>|→|▶|go to next month|show next month)$/i;
const PREVIOUS = /^(?:prev(?:ious)?(?: month)?|‹|«|<|←|◀|go to previous month|show previous month)$/i;
const MONTH_YEAR = new RegExp(`\\b(${MONTHS.join('|')})\\s+(\\d{4})\\b`, 'gi');

type Element = Extract<OutlineEntry, { kind: 'element' }>;

export interface CalendarDay {
  index: number;
  /** YYYY-MM-DD. */
  iso: string;
  disabled: boolean;
}

/** A calendar open on the page. */
export interface Calendar {
  days: CalendarDay[];
  /** YYYY-MM: the month most of its days are in. */
  month: string;
  /** The elements that turn it a month on and back, by index. */
  next?: number;
  previous?: number;
}

/** What the task asks the calendar for: a day, or only a month ("in December 2026"). */
export interface Wanted {
  /** YYYY-MM. */
  month: string;
  /** YYYY-MM-DD, when the task names the day. */
  iso?: string;
  /** How the task writes it. */
  written: string;
}

const monthName = (month: string) => `${MONTHS[Number(month.slice(5, 7)) - 1]} ${month.slice(0, 4)}`;
const pad = (n: number) => String(n).padStart(2, '0');

/** The calendar the page's elements show, or undefined when none is open. */
export function calendarOf(outline: OutlineEntry[]): Calendar | undefined {
  const elements = outline.filter((e): e is Element => e.kind === 'element');
  let days: CalendarDay[] = elements.flatMap((e) => {
    const iso = DAY_ROLES.has(e.info.role) && e.info.name.length <= 40 ? isoDate(e.info.name) : undefined;
    return iso ? [{ index: e.index, iso, disabled: !!e.info.disabled }] : [];
  });
  if (days.length < MIN_DAYS) days = numberedDays(outline);
  if (days.length < MIN_DAYS) return undefined;
  const count = new Map<string, number>();
  for (const d of days) count.set(d.iso.slice(0, 7), (count.get(d.iso.slice(0, 7)) ?? 0) + 1);
  const month = [...count].sort((a, b) => b[1] - a[1])[0]?.[0] as string;
  const arrow = (pattern: RegExp) => elements.find((e) => !e.info.disabled && pattern.test(e.info.name.trim()))?.index;
  return { days, month, next: arrow(NEXT), previous: arrow(PREVIOUS) };
}

/** Days named by their number alone ("17"), 1 upward, after a heading that names their month ("March 2027"). */
function numberedDays(outline: OutlineEntry[]): CalendarDay[] {
  let month: string | undefined;
  let days: CalendarDay[] = [];
  for (const e of outline) {
    const text = e.kind === 'text' ? e.text : e.info.name;
    const heading = new RegExp(`^\\s*(${MONTHS.join('|')})\\s+(\\d{4})\\s*$`, 'i').exec(text);
    if (heading) {
      if (days.length >= MIN_NUMBERED) return days;
      const at = MONTHS.findIndex((m) => m.toLowerCase() === (heading[1] as string).toLowerCase());
      month = `${heading[2]}-${pad(at + 1)}`;
      days = [];
      continue;
    }
    if (!month || e.kind !== 'element' || !DAY_ROLES.has(e.info.role) || !/^\d{1,2}$/.test(e.info.name.trim()))
      continue;
    const n = Number(e.info.name);
    // Numbering starts at the 1st: the days of the month before, shown ahead of it, are not this month's.
    if (n === days.length + 1) days.push({ index: e.index, iso: `${month}-${pad(n)}`, disabled: !!e.info.disabled });
  }
  return days.length >= MIN_NUMBERED ? days : [];
}

/**
 * The first day the task writes out that no element of the page holds as its value (a day already
 * picked shows in its box); else a month it names without a day ("the first Saturday in December
 * 2026"). Undefined when it names neither.
 */
export function wantedOf(task: string, outline: OutlineEntry[]): Wanted | undefined {
  const held = new Set(
    outline.flatMap((e) =>
      e.kind === 'element' && e.info.value ? [isoDate(e.info.value), ...datesIn(e.info.value).map((d) => d.iso)] : [],
    ),
  );
  const dates = datesIn(task);
  const day = dates.find((d) => !held.has(d.iso));
  if (day) return { month: day.iso.slice(0, 7), iso: day.iso, written: day.written };
  if (dates.length > 0) return undefined;
  const month = [...task.matchAll(MONTH_YEAR)][0];
  if (!month) return undefined;
  const at = MONTHS.findIndex((m) => m.toLowerCase() === (month[1] as string).toLowerCase());
  return { month: `${month[2]}-${pad(at + 1)}`, written: month[0] };
}

const monthsBetween = (from: string, to: string) =>
  (Number(to.slice(0, 4)) - Number(from.slice(0, 4))) * 12 + Number(to.slice(5, 7)) - Number(from.slice(5, 7));

/** What the view does with a calendar: the days it leaves out, the line it says in their place, and the hint. */
export interface CalendarPlan {
  /** Days neither shown nor offered, by index. */
  hidden: Set<number>;
  /** The text line in place of the days left out. */
  summary?: string;
  /** The step's hint, said last. */
  hint?: string;
}

/**
 * The calendar as the step shows it: while its month is not the task's, no day, and only the arrow to
 * press; once it is, no arrow, and the task's day alone (or, for a month alone, the days it offers, or
 * the earliest alone when the task asks for it). Days that cannot be picked are never shown. `label`
 * names an element as the view does.
 */
export function calendarPlan(
  calendar: Calendar,
  wanted: Wanted | undefined,
  task: string,
  label: (index: number) => string,
): CalendarPlan {
  const shut = calendar.days.filter((d) => d.disabled).map((d) => d.index);
  const open = calendar.days.filter((d) => !d.disabled);
  const summary = `calendar of ${monthName(calendar.month)}`;
  if (!wanted) return { hidden: new Set(shut), summary };
  const ahead = monthsBetween(calendar.month, wanted.month);
  // An arrow away from the task's month, or any arrow once the calendar shows it, is not offered: the
  // 1.5B paged back from the month it had reached, and forth again, until its steps ran out.
  const arrows = (keep?: number) =>
    [calendar.previous, calendar.next].filter((i): i is number => i !== undefined && i !== keep);
  if (ahead !== 0) {
    const arrow = ahead > 0 ? calendar.next : calendar.previous;
    const months = `${Math.abs(ahead)} month${Math.abs(ahead) > 1 ? 's' : ''} ${ahead > 0 ? 'later' : 'earlier'}`;
    return {
      hidden: new Set([...calendar.days.map((d) => d.index), ...arrows(arrow)]),
      summary: `${summary} (its days are left out: the task's date is in another month)`,
      hint:
        arrow !== undefined
          ? `The calendar shows ${monthName(calendar.month)}; "${wanted.written}" is ${months}: click "${label(arrow)}".`
          : `The calendar shows ${monthName(calendar.month)}; "${wanted.written}" is ${months}.`,
    };
  }
  if (wanted.iso) {
    const day = calendar.days.find((d) => d.iso === wanted.iso);
    if (!day) return { hidden: new Set(shut), summary };
    return {
      hidden: new Set([...calendar.days.filter((d) => d !== day).map((d) => d.index), ...arrows()]),
      summary: `${summary} (only the task's day is shown)`,
      hint: day.disabled
        ? `The calendar does not let "${wanted.written}" be chosen: it is disabled.`
        : `Choose "${label(day.index)}" in the calendar.`,
    };
  }
  // "The earliest Saturday": of the days it offers, the first on the weekday the task says.
  const weekday = WEEKDAYS.findIndex((w) => new RegExp(`\\b${w}s?\\b`, 'i').test(task));
  const first = open.find((d) => weekday < 0 || new Date(`${d.iso}T00:00:00Z`).getUTCDay() === weekday);
  const earliest = /\b(?:earliest|first|soonest|next available|nearest)\b/i.test(task);
  if (!earliest || !first) return { hidden: new Set([...shut, ...arrows()]), summary };
  // The earliest asked for: that day alone, as a day the task writes out is.
  return {
    hidden: new Set([...calendar.days.filter((d) => d !== first).map((d) => d.index), ...arrows()]),
    summary: `${summary} (only the first day it offers${weekday < 0 ? '' : ` on a ${WEEKDAYS[weekday]}`} is shown)`,
    hint: `The first day the calendar offers is "${label(first.index)}": choose it in the calendar.`,
  };
}
