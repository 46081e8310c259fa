// The compact step's checks after an act (docs/models.md, "Step profiles"): whether every part is
// done, read from the parts and the page; and the short questions: is the task done now, does the
// text the act brought answer it, did the page refuse the send. Each question is a continuation of
// the step's own message and answer, so only the question is evaluated; it is charged and timed with
// the step. A yes finishes the run.

import type { ElementInfo, PageState } from '../../browser/types.js';
import { type Before, whatChanged } from '../../domain/compact.js';
import { choicesLeft } from '../../domain/form-values.js';
import { asksExtreme } from '../../domain/hints.js';
import type { StepAction } from '../../domain/step.js';
import {
  ANSWER_SCHEMA,
  answerQuestion,
  DONE_SCHEMA,
  doneQuestion,
  groundedIn,
  newText,
  refusal,
  saidDone,
  shapedAnswer,
  shapedAnswerQuestion,
  shapedAnswerSchema,
  statedAnswer,
} from '../../domain/step-questions.js';
import { asksForAnswer, doneParts, entersOnly, taskParts } from '../../domain/task-parts.js';
import type { JsonSchema, ModelClient, StepResult } from '../../model/types.js';
import type { BrowserSystem } from './browser.js';
import type { RunContext } from './context.js';
import type { OutputSystem } from './output.js';

/** What a click shows that is what it chose (a tab's panel, a box ticked, an option): not more to do. */
const DISCLOSES = new Set<ElementInfo['role']>(['tab', 'checkbox', 'radio', 'option', 'select']);

/** Tokens the done question may generate: `{"done":"yes"}`. */
const DONE_TOKENS = 12;
/** Tokens of the answer check's answer: a few words. */
const ANSWER_TOKENS = 48;
/** Tokens of an answer in the run's output schema's shape: a small object. */
const SHAPED_TOKENS = 200;

/** The step a question goes on from: its model, its system prompt, its message and the model's answer. */
export interface Asking {
  model: ModelClient;
  system: string;
  text: string;
  answer: unknown;
}

/** A question's tokens, as its event tells them. */
const tokensOf = (result: StepResult) => ({
  inputTokens: result.usage.inputTokens,
  outputTokens: result.usage.outputTokens,
  ...(result.evaluatedInputTokens !== undefined && { evaluatedInputTokens: result.evaluatedInputTokens }),
});

export class StepChecks {
  constructor(
    private readonly run: RunContext,
    private readonly systems: { browser: BrowserSystem; output: OutputSystem },
    /** Charges a question's tokens to the run and adds its model time to the step's. */
    private readonly account: (result: StepResult) => void,
  ) {}

  /** Is the task done after the act `before` tells? Yes finishes the run with what was done. */
  async done(ask: Asking, before: (Before & { said: string }) | undefined): Promise<void> {
    if (!before) return;
    const last = `${before.said}; ${whatChanged(before, await this.systems.browser.observe(false))}`;
    const result = await this.ask(ask, doneQuestion(this.run.row.task, last), DONE_SCHEMA, 'done', DONE_TOKENS);
    if (!result) return; // no answer is a no: the next step goes on
    const yes = saidDone(result.output);
    await this.run.event('step', 'done_check', `is the task done? ${yes ? 'yes' : 'no'}`, {
      done: yes,
      ...tokensOf(result),
    });
    if (yes) await this.systems.output.finish({ action: 'finish', success: true, answer: `Done: ${last}` }, []);
  }

  /**
   * Does the text the act brought answer the task's question? A small model that sees the answer on
   * the page still clicks on; asked this alone, it says it, and the run finishes with it.
   */
  async answer(ask: Asking, before: Before | undefined): Promise<void> {
    if (!before) return;
    const page = await this.systems.browser.observe(false);
    const text = newText(before, page);
    const { task, outputSchema } = this.run.row;
    // The oldest post of a blog, the dearest item of a category: the step's dated and superlative lines
    // compare them (across pages too) and name the answer; one page's text read alone does not.
    if (!text || asksExtreme(task)) return;
    const shape = outputSchema as JsonSchema | null;
    const result = shape
      ? await this.ask(
          ask,
          shapedAnswerQuestion(task, text, shape),
          shapedAnswerSchema(shape),
          'answer',
          SHAPED_TOKENS,
          {
            alone: true,
          },
        )
      : await this.ask(ask, answerQuestion(task, text), ANSWER_SCHEMA, 'answer', ANSWER_TOKENS);
    if (!result) return;
    const read = shape ? shapedAnswer(result.output) : statedAnswer(result.output);
    // A number the text does not write is not read from it: the run goes on to the page that holds it.
    const said = read !== undefined && groundedIn(read, text, task) ? read : undefined;
    const words = said ? JSON.stringify(said) : read !== undefined ? `no (${JSON.stringify(read)} is not on it)` : 'no';
    await this.run.event('step', 'answer_check', `does the page answer it? ${words}`, {
      answered: !!said,
      ...tokensOf(result),
    });
    // A shaped answer that does not fit the schema is refused by finish, and the run goes on.
    if (said) await this.systems.output.finish({ action: 'finish', success: true, answer: said }, []);
  }

  /**
   * What the page said back to a send (a click of a button, Enter) that it refused: the new text's
   * lines that say so ("Enter your full name."), on the page it was sent from; undefined when it
   * took it or moved on (a new page's words are its own, not an answer to the send). A send that
   * loaded the same page again with the words it refused with before (`earlier`) was refused again:
   * those lines are not new, but they answer this send.
   */
  async refused(
    before: Before | undefined,
    reloaded: boolean,
    earlier: readonly string[] = [],
  ): Promise<string[] | undefined> {
    if (!before) return undefined;
    const after = await this.systems.browser.observe(false);
    if (after.url !== before.url) return undefined;
    const fresh = refusal(newText(before, after));
    if (fresh || !reloaded || earlier.length === 0) return fresh;
    const still = after.outline.flatMap((e) => (e.kind === 'text' && earlier.includes(e.text) ? [e.text] : []));
    return refusal(still.join('\n'));
  }

  /**
   * Whether the act finished the task: every part of it named by an act that worked, the last act one
   * that sends (a click or Enter) unless the task is one part, nothing typed left unsent unless the task
   * only says to type it, and the act opened nothing new on the
   * same page (a confirmation, a dialog still to answer) unless it was a tab, a box or an option, whose
   * new elements are what it chose.
   */
  async allPartsDone(action: StepAction, before: PageState, info: ElementInfo | undefined): Promise<boolean> {
    const { memory, row } = this.run;
    const parts = taskParts(row.task).length;
    if (doneParts(row.task, memory).size < parts) return false;
    // Text typed and not sent since is not the end, unless typing it is all the task says.
    if (memory.unsent && (parts > 1 || !entersOnly(row.task))) return false;
    const sends = action.action === 'click' || (action.action === 'press' && action.key === 'Enter');
    if (parts > 1 && !sends) return false;
    // A list the task names an option of, sent on another ("the billing team", “To” on “Customer support”).
    const lists = before.outline.flatMap((e) => (e.kind === 'element' ? [e.info] : []));
    if (sends && choicesLeft(row.task, lists).length > 0) return false;
    const after = await this.systems.browser.observe(false);
    if (after.url !== before.url) return true;
    // A dialog that opened asks for more; one that closed (the page behind it back) was the end.
    if (after.modal) return false;
    if (before.modal) return true;
    // What a collapsed control opens (a menu, a list) is a choice still to make, never the end.
    if (info?.expanded === false) return false;
    // What a tab, a box or an option shows is what was chosen; what a button opens may ask for more.
    if (info && DISCLOSES.has(info.role)) return true;
    return !after.outline.some((e) => e.kind === 'element' && e.fresh);
  }

  /**
   * Why a finish is early, or undefined when it is not: a task to do (no question, no output schema)
   * with a part not done yet, or a box typed into and never sent since; an answer with a number the
   * page and the task do not write (the 1.5B finishes on a page still loading with a rate it made
   * up). The loop refuses it once; a second finish is taken (the parts are read from words, and an
   * answer may count).
   */
  async earlyFinish(
    action: Extract<StepAction, { action: 'finish' }>,
  ): Promise<{ why: string; nudge: string; data: Record<string, unknown> } | undefined> {
    const { memory, row } = this.run;
    if (row.outputSchema || asksForAnswer(row.task)) {
      if (action.answer === undefined || action.answer === '') return undefined;
      // A list answered empty while the page shows rows: the 1.5B answered {"people": []} over five.
      if (emptyLists(action.answer))
        return {
          why: 'the answer lists nothing',
          nudge:
            'Not finished: your answer lists nothing. Put in it every item the page shows that the task asks for, then finish.',
          data: {},
        };
      const page = await this.systems.browser.observe(false);
      const text = page.outline.map((e) => (e.kind === 'text' ? e.text : `${e.info.name} ${e.info.value ?? ''}`));
      if (groundedIn(action.answer, [page.title, ...text].join('\n'), row.task, false)) return undefined;
      return {
        why: 'the answer gives a number the page does not show',
        nudge: `Not finished: the page does not show ${JSON.stringify(action.answer).slice(0, 200)}. Find it on the page, then finish with it.`,
        data: {},
      };
    }
    const parts = taskParts(row.task);
    const done = doneParts(row.task, memory);
    const left = parts.findIndex((_, i) => !done.has(i));
    if (left >= 0)
      return {
        why: `part ${left + 1} is not done yet`,
        nudge: `Not finished: ${JSON.stringify(parts[left])} is not done yet. Do it, then finish.`,
        data: { part: left + 1 },
      };
    // Every part looks done, but what was typed last was never sent (a date typed, no "Confirm").
    if (!memory.unsent || entersOnly(row.task)) return undefined;
    return {
      why: 'what was entered is not sent yet',
      nudge: 'Not finished: what you entered is not sent yet. Do what is left, send the form, then finish.',
      data: {},
    };
  }

  /** One question after the step; undefined when the model gave no answer (a failure is a no). */
  private async ask(
    ask: Asking,
    question: string,
    schema: JsonSchema,
    name: string,
    maxOutputTokens: number,
    /** Asked on its own, without the step's message and answer before it. */
    { alone = false } = {},
  ): Promise<StepResult | undefined> {
    const { run } = this;
    const asked = { role: 'user' as const, text: run.policy.scrub(question) };
    try {
      const result = await ask.model.step({
        system: ask.system,
        messages: alone
          ? [asked]
          : [{ role: 'user', text: ask.text }, { role: 'assistant', text: JSON.stringify(ask.answer) }, asked],
        schema,
        schemaName: `compact_${name}`,
        maxOutputTokens,
        signal: AbortSignal.any([run.stepAbort.signal, run.signal]),
      });
      this.account(result);
      return result;
    } catch (err) {
      // Said among the run's debug events: a question that never gets an answer is otherwise invisible.
      if (!run.stepAbort.signal.aborted && !run.signal.aborted)
        await run.event('debug', 'check_failed', `the ${name} question got no answer`, {
          error: (err instanceof Error ? err.message : String(err)).slice(0, 300),
        });
      return undefined;
    }
  }
}

/** Whether an answer is an object whose every list is empty, one list at least ({"people": []}). */
function emptyLists(answer: unknown): boolean {
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return false;
  const lists = Object.values(answer).filter(Array.isArray);
  return lists.length > 0 && lists.every((l) => l.length === 0);
}
