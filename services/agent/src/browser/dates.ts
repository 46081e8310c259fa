// A date as a date input takes it. A person types a date as they write it ("December 1, 2026",
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
