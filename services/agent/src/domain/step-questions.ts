// The compact step's short questions (docs/models.md, "Step profiles"): after an act, is the task
// done now; does the text the act brought answer the task (in words, or in the run's output
// schema's shape); did the page refuse what was sent; and the lab arm's plan at a run's start. Each
// is a schema, the question's words, and a reading of the model's answer. Pure: no I/O.
import type { PageState } from '../browser/types.js';
import type { JsonSchema } from '../model/types.js';
import { type Before, obj, oneOf, str } from './compact.js';
import { quote } from './form-values.js';
import { strictSchema } from './strict-schema.js';
import { fieldWords, taskWords } from './task-parts.js';

export const DONE_SCHEMA: JsonSchema = obj({ done: oneOf(['yes', 'no']) });

/**
 * The question after an act, put after the step's own message and answer (so only it is evaluated):
 * what the act did and changed, and whether the whole task is done now.
 */
export function doneQuestion(task: string, last: string): string {
  return `You did: ${last}.\nQuestion: is the task ${JSON.stringify(task)} now complete, with nothing left to do? {"done":"yes"} or {"done":"no"}`;
}

/** The model's yes to the question; anything else is a no. */
export function saidDone(output: unknown): boolean {
  return (output as { done?: unknown } | null)?.done === 'yes';
}

/** Characters of new page text an answer check reads. */
const ANSWER_TEXT_CHARS = 800;

/**
 * The page's text an act brought (lines that were not there before), whole rather than cut as a
 * change names them, bounded: what a question's answer is read from. Empty when nothing came.
 */
export function newText(before: Before, page: PageState): string {
  const seen = new Map<string, number>();
  for (const line of before.lines ?? []) seen.set(line, (seen.get(line) ?? 0) + 1);
  const fresh: string[] = [];
  for (const e of page.outline) {
    if (e.kind !== 'text') continue;
    const line = quote(e.text.slice(0, 60));
    const n = page.url === before.url ? (seen.get(line) ?? 0) : 0;
    if (n > 0) seen.set(line, n - 1);
    else fresh.push(e.text);
  }
  return fresh.join('\n').slice(0, ANSWER_TEXT_CHARS);
}

/** Words of a page that refuses what was sent: a form's errors. */
const REFUSES =
  /\b(?:error|invalid|not valid|required|must|missing|is taken|already (?:taken|in use|exists)|differ|do not match|don't match|too (?:short|long)|try again|could not|couldn't|failed|enter (?:a|an|your)|choose (?:a|an|another)|write the|should|not allowed|cannot|can't|at least|no more than|(?:digits|letters|numbers) only|for example)\b/i;

/** The lines of `text` (what a send brought) that say the page refused it; undefined when none does. */
export function refusal(text: string): string[] | undefined {
  const lines = text
    .split('\n')
    .filter((line) => REFUSES.test(line))
    .map((line) => line.slice(0, 200))
    .slice(0, 10);
  return lines.length > 0 ? lines : undefined;
}

export const ANSWER_SCHEMA: JsonSchema = obj({ answer: str(200) });

/** The answer check's schema for a run with an output schema: the answer in its shape, or none. */
export const shapedAnswerSchema = (output: JsonSchema): JsonSchema => ({
  anyOf: [strictSchema(output), obj({ none: oneOf(['yes']) })],
});

/**
 * The answer check's question for a run with an output schema (`shapedAnswerSchema`), the shape written
 * out; asked on its own, not after the step (docs/models.md, "Step profiles"). After the step's turn
 * the 1.5B said none of "within 14 days of delivery" and of "for 15 seconds"; asked alone, in these
 * words, it read both, and said none of a results page (2026-11-30).
 */
export function shapedAnswerQuestion(task: string, text: string, output: JsonSchema): string {
  return `The page now also says:\n${text}\nQuestion: ${task}\nAnswer as ${shapeOf(output)} from this text, or {"none":"yes"} if it does not say.`;
}

/**
 * A JSON schema as a small model reads the answer it asks for: `{"balance": number (in euros)}`, an
 * enum as its values, an array as one item and an ellipsis; bounded, the deepest parts as `...`.
 */
export function shapeOf(schema: unknown, depth = 0): string {
  const s = (schema && typeof schema === 'object' ? schema : {}) as Record<string, unknown>;
  if (depth > 3) return '...';
  const said = typeof s.description === 'string' ? ` (${s.description.slice(0, 60)})` : '';
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.properties && typeof s.properties === 'object') {
    const fields = Object.entries(s.properties as Record<string, unknown>)
      .slice(0, 12)
      .map(([name, sub]) => `${JSON.stringify(name)}: ${shapeOf(sub, depth + 1)}`);
    return `{${fields.join(', ')}}`;
  }
  if (s.type === 'array') return `[${shapeOf(s.items, depth + 1)}, ...]${said}`;
  const type = Array.isArray(s.type) ? s.type.join(' or ') : typeof s.type === 'string' ? s.type : 'value';
  return `${type === 'integer' ? 'number' : type}${said}`;
}

/** The shaped answer the model read from the page; undefined when it said none. */
export function shapedAnswer(output: unknown): Record<string, unknown> | undefined {
  if (!output || typeof output !== 'object' || Array.isArray(output) || 'none' in output) return undefined;
  return output as Record<string, unknown>;
}

const NUMBER_WORDS = 'zero one two three four five six seven eight nine ten eleven twelve'.split(' ');

/** The numbers a text writes, in digits ("1,284.50", "-3") or as a word up to twelve ("three"). */
function numbersIn(text: string): Set<number> {
  const found = new Set<number>();
  for (const m of text.matchAll(/-?\d[\d,]*(?:\.\d+)?/g)) found.add(Number(m[0].replace(/,/g, '')));
  for (const w of text.toLowerCase().matchAll(/\p{L}+/gu)) {
    const at = NUMBER_WORDS.indexOf(w[0]);
    if (at >= 0) found.add(at);
  }
  return found;
}

/** Whether two words are one in two forms ("egg", "eggs"; "start", "started"). */
const akin = (a: string, b: string) => a.startsWith(b) || b.startsWith(a);

/**
 * Whether an answer the check read is held by the text it read it from (or the task): every number it
 * gives is one the text or the task writes, and a number given as a named field ("eggs": 4) is written
 * on a line of the text that says the field's name or next to one ("3 eggs", "Balance" above "€1,284.50"), or in a
 * table's row under a column the name heads ("Total"); not asked when `byName` is false. A small model asked "how many eggs?" of
 * a list of results answers the "4" of "4 ingredients"; that answer is not taken, and the run goes on
 * to the page that holds it.
 */
export function groundedIn(answer: unknown, text: string, task: string, byName = true): boolean {
  const held = new Set([...numbersIn(text), ...numbersIn(task)]);
  const asked = task.toLowerCase();
  const taskSays = taskWords(task);
  const wordsOf = (line: string) => line.toLowerCase().match(/[a-z]+/g) ?? [];
  // A table's rows (cells joined by " | "), each read under the header row above it (no digit in it).
  let header: string[] | undefined;
  const lines = text.split('\n').map((line) => {
    const cells = line.includes(' | ') ? line.split(' | ') : undefined;
    if (cells && !/\d/.test(line)) header = cells;
    const columns = cells && header?.length === cells.length ? header : undefined;
    return { numbers: numbersIn(line), words: wordsOf(line), cells, columns };
  });
  const leaves: Array<{ value: unknown; key?: string }> = [{ value: answer }];
  for (let i = 0; i < leaves.length && i < 500; i++) {
    const { value, key } = leaves[i] as { value: unknown; key?: string };
    if (typeof value === 'number') {
      if (!held.has(value)) return false;
      const words = key && byName ? fieldWords(key) : [];
      const said = (line: { words: string[] }) => line.words.some((w) => words.some((k) => akin(w, k)));
      // On the line that says the name, or the one after it or before it ("Balance" above "€1,284.50").
      const beside = (i: number) => [lines[i - 1], lines[i], lines[i + 1]].some((l) => l !== undefined && said(l));
      // A table's row is read by its columns instead: the number must sit under the column that says
      // most of the name ("Requests per minute", not "Concurrent requests"), in a row the task names
      // (its "Team", its "A-1093"), not the row after the header.
      const under = (line: (typeof lines)[number]) => {
        const scores = (line.columns ?? []).map((h) => words.filter((k) => wordsOf(h).some((w) => akin(w, k))).length);
        const best = Math.max(0, ...scores);
        const named = (line.cells ?? []).some((cell) => {
          const c = cell.trim().toLowerCase();
          return (c.length >= 3 && asked.includes(c)) || [...taskWords(c)].some((w) => taskSays.has(w));
        });
        return best > 0 && named && !!line.cells?.some((cell, j) => scores[j] === best && numbersIn(cell).has(value));
      };
      const found = (line: (typeof lines)[number], i: number) => (line.columns ? under(line) : beside(i));
      if (words.length > 0 && !lines.some((line, i) => line.numbers.has(value) && found(line, i))) return false;
    } else if (typeof value === 'string') {
      for (const n of value.matchAll(/-?\d[\d,]*(?:\.\d+)?/g))
        if (!held.has(Number(n[0].replace(/,/g, '')))) return false;
    } else if (Array.isArray(value)) leaves.push(...value.map((v) => ({ value: v, key })));
    else if (value && typeof value === 'object')
      leaves.push(...Object.entries(value).map(([k, v]) => ({ value: v, key: k })));
  }
  return true;
}

/**
 * The question after an act of a task that asks for an answer, put after the step's own message and
 * answer: whether the text the act brought answers it. A small model that sees the answer on the page
 * still clicks on; asked this alone, it says it.
 */
export function answerQuestion(task: string, text: string): string {
  return `The page now also says:\n${text}\nQuestion: ${task}\nIf this text answers it, give the answer in a few words: {"answer":"..."}. If it does not, {"answer":""}`;
}

/** The answer the model read from the page; undefined when it said none. */
export function statedAnswer(output: unknown): string | undefined {
  const answer = (output as { answer?: unknown } | null)?.answer;
  if (typeof answer !== 'string') return undefined;
  const text = answer.trim();
  return text && !/^(?:none|no|not (?:shown|found|here)|unknown|n\/a)\.?$/i.test(text) ? text : undefined;
}

/** The lab arm `compact-plan`'s one question at a run's start: the plan, one short sentence. */
export const PLAN_SCHEMA: JsonSchema = obj({ plan: str(160) });

export function planQuestion(task: string, page: { title: string; url: string }): string {
  return `Task: ${task}\nPage: ${quote(page.title.slice(0, 80))} ${page.url.slice(0, 200)}\nIn one short sentence, the steps you will take to do the task, in order. {"plan":"..."}`;
}

/** The plan the model stated, one line of at most 160 characters; undefined when it stated none. */
export function statedPlan(output: unknown): string | undefined {
  const plan = (output as { plan?: unknown } | null)?.plan;
  if (typeof plan !== 'string') return undefined;
  const line = plan.replace(/\s+/g, ' ').trim().slice(0, 160);
  return line || undefined;
}
