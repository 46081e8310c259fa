// What a form still wants of the values a task gives, as the compact step says it (docs/models.md,
// "Step profiles"): the values nothing holds yet, a box that repeats another ("Confirm password"),
// and the boxes a refused form came back with empty. Pure: no I/O.
import type { ElementInfo } from '../browser/types.js';
import { dateFormat, isoDate } from './dates.js';
import type { Memory } from './memory.js';
import { phrase, sameWord, taskWords, valuesLeft } from './task-parts.js';

/** How the compact step quotes a name or a value. */
export const quote = (text: string) => `"${text.replace(/"/g, "'")}"`;

/** Words of a box that asks for another box's value again. */
const REPEATS = /\b(?:confirm(?:ation)?|repeat|re-?enter|re-?type|verify|again)\b/i;
const EVERY_REPEAT = new RegExp(REPEATS.source, 'gi');

/** A box of the view, as these lines need it. */
interface Shown {
  label: string;
  info: ElementInfo;
}

/**
 * The lines on values: what the part to do next (`part`) asks to have entered that nothing holds yet;
 * once a send was refused as incomplete, every other part's (`others`) too. Then the options the
 * task names that its lists do not hold, and the boxes to fill again or to repeat into.
 */
export function formLines(
  task: string,
  part: string | undefined,
  others: string[],
  memory: Memory,
  shown: Shown[],
): string[] {
  if ((memory.done ?? []).length === 0) return [];
  const wanted = [part, ...(memory.incomplete ? others : [])].filter((p): p is string => !!p);
  // A value one of the lists offers is said as a choice below, not as text to enter.
  const offered = (value: string) =>
    shown.some((e) => e.info.role === 'select' && e.info.options?.some((o) => phrase(o) === phrase(value)));
  // The other parts' values too, when a box of the page plainly takes them (an email address and an
  // "Email" box): the 1.5B sent an application with its optional Email empty.
  const boxed = memory.incomplete
    ? []
    : others.flatMap((p) => valuesLeft(p, memory.typed)).filter((v) => boxFor(v, task, shown) !== undefined);
  const left = [...new Set([...wanted.flatMap((p) => valuesLeft(p, memory.typed)), ...boxed])].filter(
    (v) => !offered(v),
  );
  const into = (value: string) => {
    const box = boxFor(value, task, shown);
    // A read-only box (a calendar's, a picker's) is filled by what a click on it opens.
    const readonly = box !== undefined && shown.some((e) => e.label === box && e.info.readonly);
    return box ? `${quote(value)} into ${quote(box)}${readonly ? ' (click it to choose)' : ''}` : quote(value);
  };
  const lines = left.length > 0 ? [`Not entered yet: ${left.map(into).join(', ')}`] : [];
  const choices = choicesLeft(
    task,
    shown.map((e) => e.info),
  );
  if (choices.length > 0)
    lines.push(`Not chosen yet: ${choices.map((c) => `${quote(c.option)} in ${quote(c.name)}`).join(', ')}`);
  return [...lines, ...refills(memory, shown), ...reformats(memory, shown)];
}

/** Words of a refusal that asks for a value in digits alone. */
const DIGITS_ONLY =
  /\b(?:digits|numbers|numerals) only\b|\bonly (?:digits|numbers|numerals)\b|\bwithout (?:spaces|dashes|the \+)\b/i;

/**
 * A box a refused send names ("Phone numbers are digits only, country code first") that holds what
 * the refusal asks otherwise: the value in the form it asks, to type instead. A small model types the
 * task's "+44 7700 900123" again as written.
 */
function reformats(memory: Memory, shown: Shown[]): string[] {
  const refused = memory.pageRefused ?? [];
  const lines: string[] = [];
  for (const { label, info } of shown) {
    if (info.role !== 'textbox' || !info.value || info.value === '•••' || info.disabled) continue;
    const words = [...taskWords(info.name)].filter((w) => w.length >= 4);
    const names = (line: string) => [...taskWords(line)].some((x) => words.some((w) => sameWord(w, x)));
    const says = refused.some((line) => DIGITS_ONLY.test(line) && names(line));
    const digits = info.value.replace(/\D/g, '');
    if (says && digits && digits !== info.value)
      lines.push(
        `${quote(label)} was refused as written: the page asks for digits only: type ${quote(digits)} into it`,
      );
  }
  return lines.slice(0, 2);
}

/**
 * The options the task names that their lists do not hold ("send the billing team a
 * message" and a “To” list with “Billing team” on “Customer support”): what is left to choose before
 * a send. An option of one or two letters, or that names nothing (“Yes”), is not looked for.
 */
export function choicesLeft(task: string, infos: ElementInfo[]): Array<{ name: string; option: string }> {
  const said = phrase(task);
  const left: Array<{ name: string; option: string }> = [];
  for (const info of infos) {
    if (info.role !== 'select' || info.disabled || !info.options?.length) continue;
    const named = info.options.filter((o) => {
      const words = phrase(o);
      return (
        words.trim().length >= 4 &&
        !/^ (?:yes|no|none|other|all|any|select|choose)\b/.test(words) &&
        said.includes(words)
      );
    });
    const option = named.sort((a, b) => b.length - a.length)[0];
    if (option && phrase(info.value ?? '') !== phrase(option)) left.push({ name: info.name, option });
  }
  return left.slice(0, 3);
}

/**
 * Empty boxes the run knows what to type into: one it typed into before that a refused form came back
 * without ("Password", cleared by the page), and one that repeats a box it typed into ("Confirm
 * password" after "Password"). At most four.
 */
function refills(memory: Memory, shown: Shown[]): string[] {
  const typed = memory.typedInto ?? [];
  const lines: string[] = [];
  for (const { label, info } of shown) {
    // A box the run ticked that a refused form came back without.
    if (info.role === 'checkbox' && info.checked === false && memory.pageRefused?.length)
      if ((memory.typed ?? []).includes(info.name)) lines.push(`${quote(label)} is unticked again: tick it`);
    if (info.role !== 'textbox' || info.value !== undefined || info.disabled) continue;
    const own = memory.pageRefused?.length ? typed.find(([name]) => name === info.name) : undefined;
    const base = REPEATS.test(info.name) ? phrase(info.name.replace(EVERY_REPEAT, ' ')).trim() : '';
    const repeated =
      !own && base ? typed.find(([name]) => !REPEATS.test(name) && phrase(name).includes(` ${base} `)) : undefined;
    if (own) lines.push(`${quote(label)} is empty again: type ${quote(own[1])} into it`);
    else if (repeated) lines.push(`${quote(label)} repeats ${quote(repeated[0])}: type ${quote(repeated[1])} into it`);
  }
  return lines.slice(0, 4);
}

/**
 * The box a value of the task goes into, when one box says so better than any other: the words the
 * task puts before the value ("username oliver", "date of birth 1987-06-02") in the box's name, and
 * what the value is (an address: a box of mail; a date: a box of a date; a person's name: a name box
 * that is no user name). Undefined when no box, or two alike, fit.
 */
function boxFor(value: string, task: string, shown: Shown[]): string | undefined {
  const at = task.indexOf(value);
  const lead =
    at > 0
      ? (task
          .slice(Math.max(0, at - 40), at)
          .split(/[,;:.!?]/)
          .at(-1) ?? '')
      : '';
  const before = [...taskWords(lead)];
  const kind = value.includes('@')
    ? 'mail'
    : isoDate(value)
      ? 'date'
      : /^\p{Lu}\p{Ll}+[ '-]\p{Lu}/u.test(value)
        ? 'person'
        : undefined;
  const scored = shown
    .filter(({ info }) => info.role === 'textbox' && !info.disabled && info.value !== value)
    .map(({ label, info }) => {
      const words = [...taskWords(info.name)];
      let score = 2 * before.filter((w) => words.some((x) => sameWord(w, x))).length;
      if (kind === 'mail' && /mail/i.test(info.name)) score += 2;
      if (kind === 'date' && (/date|birth|\bday\b/i.test(info.name) || dateFormat(info.hint))) score += 2;
      if (kind === 'person' && /\bname\b/i.test(info.name) && !/user|login|account/i.test(info.name)) score += 2;
      return { label, score };
    })
    .filter((b) => b.score > 0)
    .sort((a, b) => b.score - a.score);
  const [best, second] = scored;
  return best && (!second || second.score < best.score) ? best.label : undefined;
}

/**
 * After text typed into a combobox or a click that opened a list, the line that asks for one of the
 * options it shows: the option whose every word the task says ("Valparaíso, Chile" for "Valparaíso
 * in Chile") when exactly one is; else the one that says the most of the task's words when one does
 * ("Express delivery, 1 to 2 days, €9.90" for "with express delivery"); else any. Undefined when the
 * list shows no option.
 */
export function optionLine(task: string, shown: Shown[], opened = false, typed: string[] = []): string | undefined {
  const options = shown.filter((e) => e.info.role === 'option' && !e.info.disabled);
  if (options.length === 0) return opened ? undefined : fewerWords(task, shown, typed);
  const said = [...taskWords(task)];
  const wordsOf = (e: Shown) => [...taskWords(e.info.name)];
  const saysOf = (e: Shown) => wordsOf(e).filter((w) => said.some((t) => sameWord(w, t))).length;
  const whole = options.filter((e) => wordsOf(e).length > 0 && saysOf(e) === wordsOf(e).length);
  const most = Math.max(...options.map(saysOf));
  const best = options.filter((e) => saysOf(e) === most);
  const fit = whole.length === 1 ? whole[0] : whole.length === 0 && most > 0 && best.length === 1 ? best[0] : undefined;
  const alone = opened ? 'opening the list' : 'typing';
  return fit
    ? `Now choose its option ${quote(fit.label)}: ${alone} alone chose nothing.`
    : `Now choose one of the options it shows: ${alone} alone chose nothing.`;
}

/**
 * A combobox that shows no option for what was typed into it ("billing urgent" into a tag box): the
 * line that asks for one value at a time, the first of the task's words it holds. Undefined when it
 * holds fewer than two of them.
 */
function fewerWords(task: string, shown: Shown[], typed: string[]): string | undefined {
  const jammed = jammedBox(task, shown, typed);
  if (!jammed) return undefined;
  return `Its list shows no option for ${quote(jammed.box.info.value as string)}: type one value at a time, ${quote(jammed.first)}.`;
}

/**
 * A combobox holding two or more of the task's words while its list shows no option ("billing urgent"
 * typed into a tag box): the box, to be typed into again, and the first word the run has not chosen yet
 * (`typed`: "urgent" once "billing" is a tag), the value to type.
 */
export function jammedBox<T extends Shown>(
  task: string,
  shown: T[],
  typed: string[] = [],
): { box: T; first: string } | undefined {
  if (shown.some((e) => e.info.role === 'option' && !e.info.disabled)) return undefined;
  const said = [...taskWords(task)];
  const box = shown.find((e) => e.info.role === 'textbox' && e.info.expanded !== undefined && e.info.value);
  const held = (box?.info.value ?? '').split(/[\s,;]+/).filter((w) => said.some((t) => sameWord(t, w.toLowerCase())));
  const chosen = new Set(typed.map((t) => t.trim().toLowerCase()));
  const first = held.find((w) => !chosen.has(w.toLowerCase())) ?? held[0];
  return box && held.length >= 2 ? { box, first: first as string } : undefined;
}

/** Words of a task that wants only what it names ticked: "and no other toppings", "everything else off". */
const ONLY = /\b(?:no other|nothing else|only|everything else|all (?:the )?others?|none of the others)\b/i;

/**
 * For a task that wants only what it names, the boxes ticked that it does not name (a word of theirs
 * the task never says): "Untick what the task does not name: "Extra cheese", "Red onions"". The page
 * came with them ticked; the 1.5B ticked the two it was asked for and left the others.
 */
export function untickLine(task: string, shown: Shown[]): string | undefined {
  if (!ONLY.test(task)) return undefined;
  // What the task says no to ("no analytics, no marketing") it does not name to keep.
  const said = [...taskWords(task.replace(/\b(?:no|not|without)\s+[\p{L}-]+/giu, ' '))];
  const extra = shown.filter(
    ({ info }) =>
      info.role === 'checkbox' &&
      info.checked &&
      !info.disabled &&
      [...taskWords(info.name)].some((w) => !said.some((t) => sameWord(w, t))),
  );
  return extra.length > 0
    ? `Untick what the task does not name: ${extra.map((e) => quote(e.label)).join(', ')}.`
    : undefined;
}
