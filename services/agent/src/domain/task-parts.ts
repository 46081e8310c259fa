// A task as the compact step reads it (docs/models.md, "Step profiles"): its
// words, its parts (clauses), how many acts each takes and the values each
// names, which of them a run's acts have done, whether it asks for an answer,
// and when to ask the model "is the task done?". Pure: no I/O.
import type { ElementInfo } from '../browser/types.js';
import { datesIn, isoDate } from './dates.js';
import type { Memory } from './memory.js';
import type { StepAction } from './step.js';

/** Words of a task that name nothing on a page. */
const STOP_WORDS = new Set(
  (
    'the a an and or then into onto in on of to for with from at by is are be it its this that these those please ' +
    'click press type enter put pick choose select tick check open field box button link page form text value ' +
    'named called labelled labeled given both all each your you my me then'
  ).split(' '),
);

/** The words of `text` worth looking for on a page: lowercased, three letters or more, not a stop word. */
export function taskWords(text: string): Set<string> {
  const words = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^\p{L}\p{N}]+/u);
  return new Set(words.filter((w) => w.length >= 3 && !STOP_WORDS.has(w)));
}

/**
 * A task's parts: its clauses, split where "and", "then", a comma, a semicolon or a new sentence joins
 * them. A clause that only says where ("In the “Choose a language” dialog, click Español") leads the
 * next one rather than being a part; one that says "again" is the part before it once more.
 */
export function taskParts(task: string): string[] {
  const goal = goalOf(task);
  if (!goal) return clauses(task);
  const details = clauses(goal.details);
  // Details that end by sending ("…, then press Finish") do the goal with their last act.
  const last = details.at(-1) ?? '';
  return SENDING_PART.test(last) || SENDS.test(last) ? details : [...details, goal.goal];
}

/**
 * A task that says its goal, then its details after a colon ("Create an account for Marta: username
 * marta_k, email …"): the goal is what the details are for, so it is the last part, done by the act that
 * sends them (a click of “Create account”), not by the first detail typed. A colon followed by an act
 * ("A dialog is open: press OK", "Set the password to X: type it into both fields") is not one: the
 * words after it say how, and the clause before it names the value.
 */
function goalOf(task: string): { goal: string; details: string } | undefined {
  const match = /^([^:“"«‘]{3,160}?):\s+(\S[\s\S]*)$/.exec(task.trim()) ?? committedFirst(task);
  if (!match) return undefined;
  const [, goal, details] = match as unknown as [string, string, string];
  if (!ACT_VERB.test(goal) && !GOAL_VERB.test(goal) && !COMMITS.test(goal)) return undefined;
  if (ACT_VERB.test(details.split(/[,;.]/)[0] ?? '')) return undefined;
  return { goal: goal.trim(), details };
}

/**
 * A task that commits first and says the details after a comma ("Reserve a double room for two adults,
 * arriving on 3 February 2027 and leaving on 6 February 2027"): the same goal and details as a colon's.
 * The 1.5B pressed Reserve before any date.
 */
function committedFirst(task: string): [string, string, string] | undefined {
  const match = /^([^,:;“"«‘]{3,160}?),\s+(\S[\s\S]*)$/.exec(task.trim());
  if (!match || !COMMITS.test(match[1] as string)) return undefined;
  return DETAIL.test(match[2] as string) ? (match as unknown as [string, string, string]) : undefined;
}

/** Words that start a detail of a thing committed to, not an act of its own. */
const DETAIL = /^(?:arriving|leaving|departing|returning|starting|ending|checking (?:in|out)|from|for|with|on|at)\b/i;

/** Verbs a goal starts with that are no act of their own on a page. */
const GOAL_VERB = /^\s*(?:create|register|book|reserve|make|fill|complete|sign up|subscribe|apply|order|request)\b/i;

/** A part that says to send: it starts with the verb of a press or a click. */
const SENDING_PART = /^(?:then\s+)?(?:press|click|tap|hit|submit|send)\b/i;

/** A part that sends something it names (a message, a form): done by a send, whatever was chosen on the way. */
const SENDS_SOMETHING = /^(?:then\s+)?(?:submit|send|post)\b/i;

/**
 * A part that commits to something ("Place this order with express delivery", "Book a check-up on 17
 * March"): done by the button that says its verb ("Place order", "Book") or Enter that sent the form,
 * never by a choice on the way (the option "Express delivery", the calendar's day "17 March 2027").
 */
const COMMITS = /^(?:then\s+)?(place|book|reserve|buy|purchase|order|pay|check out|checkout)\b/i;

/** The index of the goal part `taskParts` put last, when the task says one before a colon; else undefined. */
export function goalPart(task: string): number | undefined {
  const goal = goalOf(task);
  if (!goal) return undefined;
  const parts = taskParts(task);
  return parts.at(-1) === goal.goal ? parts.length - 1 : undefined;
}

/** A task's clauses, as `taskParts` describes them, without a goal put last. */
function clauses(task: string): string[] {
  const parts: string[] = [];
  let lead: string | undefined;
  // A quoted text is one value, whatever it holds ("Clear and useful"), and words in parentheses
  // belong to their clause ("(no analytics, no marketing)"): neither is split.
  const quoted: string[] = [];
  const masked = task.trim().replace(/[“"«‘][^”"»’]*[”"»’]|\([^()]*\)/g, (q) => `\uE000${quoted.push(q) - 1}\uE001`);
  const unmask = (text: string) => text.replace(/\uE000(\d+)\uE001/g, (_, i: string) => quoted[Number(i)] ?? '');
  // A full stop after an initial or a title ("Ursula K. Le Guin", "Dr. Ames") ends no sentence.
  for (const clause of masked.split(/(\s+(?:and|then)\s+|[,;]|(?<!\b(?:\p{Lu}|Mr|Mrs|Ms|Dr|St|Prof))\.\s+(?=\S))/iu)) {
    const c = unmask(clause.trim()).replace(/\.$/, '');
    if (!/\p{L}/u.test(c) || /^(?:and|then)$/i.test(c)) continue;
    if (/^(?:again|also|too)\b/i.test(c) && parts.length > 0 && !lead) {
      parts[parts.length - 1] += ` and ${c}`;
      continue;
    }
    // A clause that only forbids ("and no other draft", "but not the old one") is no act of its own.
    if (/^(?:but\s+)?(?:no|not|never|nothing|none|without|don't|do not)\b/i.test(c) && parts.length > 0) continue;
    const text = lead ? `${lead}, ${c}` : c;
    lead = undefined;
    // A verb inside quotes is a name (“Choose a language”), not an act.
    if (WHERE.test(c) && !ACT_VERB.test(c.replace(/[“"«‘][^”"»’]*[”"»’]/g, ''))) lead = text;
    else parts.push(text);
  }
  if (lead) parts.push(lead);
  return parts;
}

/** A clause that starts by saying where (or from what source). */
const WHERE = /^(?:in|on|at|from|inside|within|under|below|above|according to)\b/i;

/** A clause with a verb of an act in it: an act of its own, wherever it starts. */
const ACT_VERB =
  /\b(?:click|press|tap|type|enter|write|fill|tick|check|uncheck|select|choose|pick|open|go|sign|log|submit|send|set|put|find|read|tell|scroll|search)\b/i;

/** How many acts a part of a task takes: two when it says so ("both fields", "twice", "again"), else one. */
export function partActs(part: string): number {
  return /\b(?:both|twice|again)\b/i.test(part) ? 2 : 1;
}

/**
 * What a part asks to have entered: its quoted texts, and its words with a digit, an @ or an _ (a user
 * name, a password, an email address, an order number), as written.
 */
export function partValues(part: string): string[] {
  // A quoted text followed by what it is ("the “Tag” field", "the “Save” button") names an element: not a value.
  const quoted = [
    ...part.matchAll(
      /[“"«‘]([^”"»’]{1,200})[”"»’](?!\s*(?:field|box|text ?box|input|area|button|tab|link|menu|list|dropdown|select|checkbox|option|section|dialog|page|panel)\b)/gi,
    ),
  ].map((m) => (m[1] as string).trim());
  const unquoted = part.replace(/[“"«‘][^”"»’]*[”"»’]/g, ' ');
  // A date written out ("17 March 2027") is one value, not a year; so is a phone number in groups.
  const dates = datesIn(unquoted).map((d) => d.written);
  const undated = dates.reduce((text, written) => text.replace(written, ' '), unquoted);
  const phones = [...undated.matchAll(/(?<![\w-])\+?\(?\d{1,4}\)?(?:[ -]\(?\d{2,8}\)?){2,4}(?![\w-])/g)].map((m) =>
    m[0].trim(),
  );
  const rest = phones.reduce((text, written) => text.replace(written, ' '), undated);
  // Words next to each other that both hold one ("BS1 4DJ", a postcode) are one value.
  const marked: string[] = [];
  let run: string[] = [];
  for (const raw of [...rest.split(/\s+/), '']) {
    const w = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (w.length >= 2 && /[\d@_]/.test(w) && w === raw) run.push(w);
    else {
      if (w.length >= 2 && /[\d@_]/.test(w)) run.push(w);
      const value = run.join(' ');
      if (value.length >= 3) marked.push(value);
      run = [];
    }
  }
  // A user name in lowercase letters only ("Sign in as omarhaddad") is a value too, by the word before it.
  const named = [...rest.matchAll(/\b(?:as|username|user name|user|login)\s+([a-z][a-z0-9.-]{3,39})\b/g)]
    .map((m) => m[1] as string)
    .filter((w) => !STOP_WORDS.has(w) && !['name', 'password', 'email'].includes(w));
  // What a thing is to be named ("an API key named ci-deploy", "a folder called Q3 reports" quoted or one word).
  const titled = [...rest.matchAll(/\b(?:named|called|titled|entitled)\s+([\p{L}\p{N}][\p{L}\p{N}._-]{1,39})/gu)]
    .map((m) => m[1] as string)
    .filter((w) => !STOP_WORDS.has(w.toLowerCase()));
  // A person's name, two or three capitalized words after who it is for ("Sign it as Dana Whitfield",
  // "an account for Marta Kowalski"): a form's name field waits for it.
  const person = [
    ...rest.matchAll(
      /\b(?:as|for|by|named|called|[Rr]egister|[Ee]nroll?|[Ii]nvite)\s+(\p{Lu}\p{Ll}+(?:[ '-]\p{Lu}\p{Ll}+){1,2})\b(?!\s*(?:field|box|button|tab|link|page|menu|list|section|dialog|panel)\b)/gu,
    ),
  ].map((m) => m[1] as string);
  // In the order the part says them: a form is filled in reading order.
  const values = [
    ...new Set([...quoted, ...dates, ...phones, ...marked, ...named, ...titled, ...person].filter(Boolean)),
  ];
  const at = (v: string) => (part.indexOf(v) + part.length + 1) % (part.length + 1);
  return values.sort((a, b) => at(a) - at(b));
}

/** The values of `part` nothing the run typed, chose or clicked holds yet. */
export function valuesLeft(part: string, typed: readonly string[] = []): string[] {
  const held = typed.map((t) => t.toLowerCase());
  // A date is held in any form a field took it in ("1990-03-14", "14/03/1990"): its three numbers.
  const numbers = typed.map((t) => new Set((t.match(/\d+/g) ?? []).map(Number)));
  const day = (v: string) => {
    const iso = isoDate(v);
    const [y, m, d] = iso ? iso.split('-').map(Number) : [];
    return iso !== undefined && numbers.some((n) => n.has(y as number) && n.has(m as number) && n.has(d as number));
  };
  return partValues(part).filter((v) => !held.some((t) => t.includes(v.toLowerCase())) && !day(v));
}

/**
 * The parts of `task` done: those with as many acts that worked as they take (`partsDone` holds a
 * part's index once per act) and every value they ask for typed or chosen (`typed`).
 */
export function doneParts(task: string, memory: Pick<Memory, 'partsDone' | 'typed'>): Set<number> {
  const parts = taskParts(task);
  const acts = new Map<number, number>();
  for (const i of memory.partsDone ?? []) acts.set(i, (acts.get(i) ?? 0) + 1);
  const done = (i: number, n: number) => {
    const part = parts[i];
    return part !== undefined && n >= partActs(part) && valuesLeft(part, memory.typed).length === 0;
  };
  const finished = new Set([...acts].filter(([i, n]) => done(i, n)).map(([i]) => i));
  // A thing to find was found once a part after it is done ("find a road bike … and add it to favourites").
  const last = Math.max(-1, ...finished);
  parts.forEach((part, i) => {
    if (i < last && FINDS.test(part)) finished.add(i);
  });
  return finished;
}

/** The words of a field's name ("startYear", "monthly_price"), lowercase, three letters or more. */
export const fieldWords = (key: string): string[] =>
  key
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((w) => w.length >= 3);

/** Whether two words are one word in two forms ("annual", "annually"): the shorter starts the longer, four letters or more. */
export const sameWord = (a: string, b: string) => {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 4 ? long.startsWith(short) : short === long;
};

/**
 * The part of the task an act that worked did: the first part not yet done whose words name what it
 * acted on (the element's name, the text typed, the option chosen); undefined when none does.
 */
export function partDone(
  task: string,
  memory: Pick<Memory, 'partsDone' | 'typed'>,
  action: StepAction,
  info: ElementInfo | undefined,
): number | undefined {
  const parts = taskParts(task);
  const finished = doneParts(task, memory);
  const acted = `${info?.name ?? ''} ${'text' in action ? action.text : ''} ${'option' in action ? action.option : ''}`;
  const words = [...taskWords(acted)];
  // A name too short for a word of its own ("OK", "Go") still names its part whole.
  const name = info?.name ? phrase(info.name) : '';
  const names = (part: string) => name.trim().length >= 2 && phrase(part).includes(name);
  // The goal is done by the act that sends the details, once they are all done: not by a detail typed
  // (a name in it), and by a button that sends ("Create account" for "Register …") whatever its words.
  const goal = goalPart(task);
  const detailsDone = goal !== undefined && parts.every((_, i) => i === goal || finished.has(i));
  const sends = action.action === 'click' && (info?.role === 'button' || info?.role === 'link');
  // What opens a list (a collapsed menu button, text typed into a combobox) chooses nothing yet: its
  // option does the part.
  if ((action.action === 'click' && info?.expanded === false) || (action.action === 'type' && combobox(info)))
    return undefined;
  // A part that says to send ("send the billing team a message") is done by a send, not by a choice on the way.
  const sending = sends || action.action === 'press';
  const does = (part: string, i: number) => {
    if (finished.has(i)) return false;
    if (i === goal) return detailsDone && sends;
    if (SENDS_SOMETHING.test(part) && !sending) return false;
    const commits = COMMITS.exec(part)?.[1]?.toLowerCase().replace(' ', '');
    if (commits)
      return (
        (action.action === 'press' && action.key === 'Enter') ||
        (sends && words.some((w) => sameWord(w, commits.replace('checkout', 'check'))))
      );
    // What is typed to find a thing (a search) is the way to it, not the thing found.
    // and a link found is the thing when the part says all its words ("Lemon ricotta pancakes"), not
    // one that shares a few ("Resetting an HX-200 mesh satellite" for "… resetting the HX-200 router").
    if (FINDS.test(part)) {
      if (action.action !== 'click') return false;
      const own = [...taskWords(info?.name ?? '')];
      const said = [...taskWords(part)];
      return names(part) || (own.length > 0 && own.every((w) => said.some((t) => sameWord(w, t))));
    }
    if (info?.role === 'link' && !leadsTo(part, words)) return false;
    return [...taskWords(part)].some((w) => words.some((a) => sameWord(w, a))) || names(part);
  };
  // The part whose verb the element says first ("Save ticket" does "save it", not "Tag this support
  // ticket with billing"), then the first part it names.
  const verbOf = (part: string) => /^\s*(?:then\s+)?(\p{L}+)/u.exec(part)?.[1]?.toLowerCase() ?? '';
  const byVerb = parts.findIndex((part, i) => words.some((w) => sameWord(w, verbOf(part))) && does(part, i));
  const found = byVerb >= 0 ? byVerb : parts.findIndex(does);
  if (found >= 0) return found;
  return goal !== undefined && detailsDone && sends && SENDS.test(info?.name ?? '') ? goal : undefined;
}

/**
 * A task of one part that only says to enter something ("Type Tora into the query", "Fill in the
 * search box with lamps"): what it types is all it asks. Any other task's typed text waits for a send.
 */
export function entersOnly(task: string): boolean {
  return taskParts(task).length === 1 && /^\s*(?:please\s+)?(?:type|enter|fill|write|put|input|paste)\b/i.test(task);
}

/** A part that says to find or look something up: done by reaching it, not by the words typed to search. */
export const FINDS = /^\s*(?:then\s+)?(?:find|look up|locate|look for|track down)\b/i;

/** A text box that opens a list of options (`aria-expanded` on it): an autocomplete, a combobox. */
export const combobox = (info: ElementInfo | undefined) => info?.role === 'textbox' && info.expanded !== undefined;

/**
 * Whether a link named by `words` does `part`: a part that says to go somewhere ("open the Billing
 * page", "click Pricing") is done by the link it names; one that says to do something there ("cancel
 * my Premium subscription") only by a link that says its verb too ("Cancel subscription"). A link
 * named by the part's object ("Subscription") leads to where the act is, it is not the act.
 */
function leadsTo(part: string, words: string[]): boolean {
  const verb = /^\s*(?:then\s+)?(\p{L}+)/u.exec(part)?.[1]?.toLowerCase() ?? '';
  if (GOES.test(verb) || (!ACT_VERB.test(verb) && !DOES.test(verb))) return true;
  return words.some((w) => sameWord(w, verb));
}

/** Verbs of a part a link does by being followed. */
const GOES = /^(?:open|go|visit|follow|view|show|see|navigate|click|tap|press|choose|pick|select)$/;

/** Verbs of a part that are an act on a page, besides those of ACT_VERB. */
const DOES =
  /^(?:cancel|delete|remove|change|update|edit|rename|save|buy|order|book|add|subscribe|unsubscribe|pay|download|accept|confirm|reset|message|reply|archive|approve|reject)$/;

/** Text as names are compared: lowercase, no accents, words between single spaces. */
export const phrase = (text: string) =>
  ` ${text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()} `;

/** Whether the task asks for something to be told (a question), not only done: its answer is the model's to give. */
export function asksForAnswer(task: string): boolean {
  return (
    /\?\s*$/.test(task.trim()) ||
    /^\s*(what|which|who|when|where|how|why|tell|say|state|describe|summari[sz]e|count|find out|read|list|report|give me|extract)\b/i.test(
      task,
    ) ||
    /\b(answer with|tell me|let me know|report back|what (is|are|was|were)|how (much|many))\b/i.test(task)
  );
}

/**
 * Whether the task is one act (click what it names, type a word): such a task is asked "done?" after
 * each act that worked. Several clauses (joined by "and", "then", a comma, a second sentence) make it
 * several acts.
 */
export function singleAct(task: string): boolean {
  const parts = taskParts(task);
  return parts.length === 0 || (parts.length === 1 && partActs(parts[0] as string) === 1);
}

/** The last part of a task, lowercased: the act it ends with ("press Submit"). */
function lastClause(task: string): string {
  return (taskParts(task).at(-1) ?? task).toLowerCase();
}

/**
 * Whether to ask "is the task done?" after `action` worked: after any act of a single-act task; after
 * a click of an element the task's last clause names, for one of several acts.
 */
export function asksDone(task: string, action: StepAction, info: ElementInfo | undefined): boolean {
  if (!['click', 'type', 'select', 'press', 'fill_secret'].includes(action.action)) return false;
  // What opens a list has chosen nothing yet.
  if ((action.action === 'click' && info?.expanded === false) || (action.action === 'type' && combobox(info)))
    return false;
  if (singleAct(task)) return true;
  if (action.action === 'press') return action.key === 'Enter';
  if (action.action !== 'click' || !info) return false;
  // A click that sends or confirms (a button, a link), not one that sets a choice on the way.
  if (['checkbox', 'radio', 'textbox', 'select', 'option', 'tab', 'file'].includes(info.role)) return false;
  const words = taskWords(info.name);
  const last = taskWords(lastClause(task));
  return words.size === 0 || last.size === 0 || [...words].some((w) => last.has(w)) || SENDS.test(info.name);
}

/** The names of buttons that send, save or confirm what the page holds. */
const SENDS =
  /\b(submit|send|save|confirm|continue|next|done|ok|apply|delete|remove|sign ?in|log ?in|pay|order|buy|add|create|update|search|go)\b/i;

/**
 * The part a form sent with Enter did: the task's last part, when it is not done and says to send
 * ("press Save", "click Sign in", "submit it"); undefined otherwise. Enter in a field sends its form as
 * its submit button does, so the part that names the button is done.
 */
export function sentPart(task: string, memory: Pick<Memory, 'partsDone' | 'typed'>): number | undefined {
  const parts = taskParts(task);
  const last = parts.length - 1;
  const part = parts[last];
  if (part === undefined || doneParts(task, memory).has(last)) return undefined;
  if (last === goalPart(task)) return last;
  return SENDING_PART.test(part) || SENDS.test(part) ? last : undefined;
}

/** An act the loop ran, as the memory of the compact step keeps it. */
export interface Act {
  action: StepAction;
  /** The element it acted on, as the step read it. */
  info: (ElementInfo & { key?: string }) | undefined;
  /** The act as the step's message tells it ("typed "Tora" into textbox "Name""). */
  said: string;
  worked: boolean;
  /** Documents the act loaded (a form sent, a link followed). */
  documents: number;
}

/**
 * What an act leaves in the run's memory: the acts done, the boxes it set, the parts of `task` it did,
 * what it entered, the text still waiting to be sent, the text box it chose to write into.
 */
export function rememberAct(task: string, memory: Memory, { action, info, said, worked, documents }: Act): void {
  // A click into a text box chose it: the next step writes into it.
  // (A read-only box takes no typing: what the click opened, a calendar or a picker, is what to use.)
  memory.writing =
    worked && action.action === 'click' && info?.role === 'textbox' && !info.readonly ? info.key : undefined;
  // What opened a list (text typed into a combobox, a click on a collapsed menu button) waits for its option.
  const opens = (action.action === 'type' && combobox(info)) || (action.action === 'click' && info?.expanded === false);
  memory.choosing = worked && opens ? info?.key : undefined;
  if (!worked) return;
  memory.done = [...(memory.done ?? []), said].slice(-20);
  const sets =
    (action.action === 'click' && (info?.role === 'checkbox' || info?.role === 'radio') && !info.checked) ||
    // A section it opened (an accordion's header): a second click closes it over the answer it showed.
    (action.action === 'click' && info?.role === 'button' && info.expanded === false) ||
    action.action === 'type' ||
    action.action === 'select' ||
    action.action === 'fill_secret';
  if (sets && info?.key) memory.ticked = [...(memory.ticked ?? []), info.key].slice(-50);
  const part = partDone(task, memory, action, info);
  // "Click Never ask again": the "again" is the button's name, not a second act.
  const named = part !== undefined && !!info?.name && /\b(?:both|twice|again)\b/i.test(info.name);
  const whole =
    named && (taskParts(task)[part as number] ?? '').toLowerCase().includes((info?.name ?? '').toLowerCase());
  if (part !== undefined) memory.partsDone = [...(memory.partsDone ?? []), ...(whole ? [part, part] : [part])];
  // What the act entered: the text typed, the option chosen, or the name of what it clicked (a box
  // ticked is its name chosen).
  const entered =
    action.action === 'type'
      ? action.text
      : action.action === 'select'
        ? action.option
        : action.action === 'click'
          ? [info?.name, info?.context].filter(Boolean).join(' ') || undefined
          : undefined;
  if (entered) memory.typed = [...(memory.typed ?? []), entered].slice(-50);
  if (action.action === 'type' && info?.name)
    memory.typedInto = [
      ...(memory.typedInto ?? []).filter(([name]) => name !== info.name),
      [info.name, action.text],
    ].slice(-20) as Memory['typedInto'];
  // Enter that sent a form did what its submit button would: the part that says to press it.
  const sent = action.action === 'press' && action.key === 'Enter' && documents > 0;
  const last = sent ? sentPart(task, memory) : undefined;
  if (last !== undefined) memory.partsDone = [...(memory.partsDone ?? []), last];
  // Text the run typed waits for a send: a button, Enter that loaded a document, or a page left. (A
  // box ticked or an option chosen may be all a task asks: "pick France and tick I agree".)
  const writes = action.action === 'type' || action.action === 'fill_secret';
  if (writes && info?.key) memory.unsent = info.key;
  else if (sent || (action.action === 'click' && info?.role === 'button') || documents > 0) memory.unsent = undefined;
}

/**
 * The task's values the page itself says ("Choose a delivery day for order A-2291"): what the page is
 * about, held already, not values to enter. Kept with what the run entered.
 */
export function rememberPage(task: string, memory: Memory, pageText: string): void {
  const said = pageText.toLowerCase();
  const held = (memory.typed ?? []).map((t) => t.toLowerCase());
  const seen = taskParts(task)
    .flatMap(partValues)
    .filter((v) => said.includes(v.toLowerCase()) && !held.some((t) => t.includes(v.toLowerCase())));
  if (seen.length > 0) memory.typed = [...(memory.typed ?? []), ...new Set(seen)].slice(-50);
}

/**
 * What a send the page refused ("Enter your full name.", "The username is taken") leaves in the
 * memory: every field offered again (what the run set may be what is wrong), the goal to send again,
 * the parts the refused send itself did (`sent`: "Book a check-up …" done by a first press of Book
 * before any date) to do again, and the page's words said once, first.
 */
export function rememberRefusal(task: string, memory: Memory, lines: string[], sent: readonly number[] = []): void {
  memory.ticked = [];
  const undone = new Set([...sent, ...[goalPart(task)].filter((i) => i !== undefined)]);
  memory.partsDone = (memory.partsDone ?? []).filter((i) => !undone.has(i));
  memory.pageRefused = lines;
  memory.incomplete = true;
  memory.nudge = `The page refused what was sent: ${lines.join(' ').slice(0, 500)} Fix what it says, then send again.`;
}
