// A date as a field takes it. A person types a date as they write it ("December 1, 2026",
// "1 Dec 2026"); an <input type=date> holds only YYYY-MM-DD, and filling it with anything else
// leaves it empty. Only unambiguous forms are read: a month by its name, or the ISO form itself;
// "01/12/2026" could be either day first or month first, and is left as written.

const MONTHS = 'january february march april may june july august september october november december'.split(' ');

/** The month of a name or its start of three letters or more ("December", "Dec.", "Sept"), 1-12; else undefined. */
function monthOf(word: string): number | undefined {
  const w = word.toLowerCase().replace(/\.$/, '');
  if (w.length < 3) return undefined;
  const at = MONTHS.findIndex((m) => m.startsWith(w));
  return at >= 0 ? at + 1 : undefined;
}

/** `text` as YYYY-MM-DD when it names one real day unambiguously; undefined otherwise. */
export function isoDate(text: string): string | undefined {
  const t = text.trim().replace(/^(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+/i, '');
  let y: number | undefined;
  let m: number | undefined;
  let d: number | undefined;
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(t);
  const monthFirst = /^([A-Za-z]+\.?)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$/.exec(t);
  const dayFirst = /^(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([A-Za-z]+\.?),?\s+(\d{4})$/.exec(t);
  if (iso) [y, m, d] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  else if (monthFirst) [y, m, d] = [Number(monthFirst[3]), monthOf(monthFirst[1] as string), Number(monthFirst[2])];
  else if (dayFirst) [y, m, d] = [Number(dayFirst[3]), monthOf(dayFirst[2] as string), Number(dayFirst[1])];
  if (y === undefined || m === undefined || d === undefined) return undefined;
  const day = new Date(Date.UTC(y, m - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) return undefined;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** The dates `text` writes out unambiguously ("born on 14 March 1990", "2026-12-01"), as written and as YYYY-MM-DD. */
export function datesIn(text: string): Array<{ written: string; iso: string }> {
  const month = '[A-Za-z]{3,9}\\.?';
  const found = text.matchAll(
    new RegExp(
      `\\b(?:\\d{4}-\\d{1,2}-\\d{1,2}|${month}\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}|\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${month},?\\s+\\d{4})\\b`,
      'g',
    ),
  );
  return [...found].flatMap((m) => {
    const iso = isoDate(m[0]);
    return iso ? [{ written: m[0], iso }] : [];
  });
}

/** The orders a date field's placeholder can ask for, by its letters: the year, month and day's places and the mark between them. */
const FORMAT = /^(YYYY|DD|MM)([-/.])(YYYY|DD|MM)\2(YYYY|DD|MM)$/;

/** The form of a date a field asks for by its placeholder ("YYYY-MM-DD", "dd/mm/yyyy"); undefined when it asks none. */
export function dateFormat(hint: string | undefined): string | undefined {
  const format = hint?.trim().toUpperCase();
  const parts = format ? FORMAT.exec(format) : null;
  if (!parts || new Set([parts[1], parts[3], parts[4]]).size !== 3) return undefined;
  return format;
}

/** A YYYY-MM-DD day in the form `format` (a dateFormat answer) writes it. */
export function formatDate(iso: string, format: string): string {
  const [y, m, d] = iso.split('-') as [string, string, string];
  return format.replace('YYYY', y).replace('MM', m).replace('DD', d);
}

/**
 * What to type into a field that asks for a date in `format`, given the text the model chose and the
 * task: a date the task writes out that the text is a piece of ("1990" of "14 March 1990") or that the
 * text writes another way, in the field's form; the text itself when it names no date of the task.
 */
export function dateAsAsked(text: string, task: string, format: string): string {
  const said = text.trim();
  const own = isoDate(said);
  const dates = datesIn(task);
  const meant =
    dates.find((d) => d.iso === own) ??
    (said.length >= 2 && !own ? dates.find((d) => d.written.includes(said) || said.includes(d.written)) : undefined);
  const iso = meant?.iso ?? own;
  return iso ? formatDate(iso, format) : text;
}
