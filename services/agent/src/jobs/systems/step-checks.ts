// The compact step's short questions after an act (docs/models.md, "Step profiles"): is the task
// done now, and, for a task that asks something, does the text the act brought answer it. Each is a
// continuation of the step's own message and answer, so only the question is evaluated; it is
// charged and timed with the step. A yes finishes the run.
import { type Before, whatChanged } from '../../domain/compact.js';
import {
  ANSWER_SCHEMA,
  answerQuestion,
  DONE_SCHEMA,
  doneQuestion,
  newText,
  refusal,
  saidDone,
  shapedAnswer,
  shapedAnswerQuestion,
  shapedAnswerSchema,
  statedAnswer,
} from '../../domain/step-questions.js';
import type { JsonSchema, ModelClient, StepResult } from '../../model/types.js';
import type { BrowserSystem } from './browser.js';
import type { RunContext } from './context.js';
import type { OutputSystem } from './output.js';

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
    const text = newText(before, await this.systems.browser.observe(false));
    if (!text) return;
    const { task, outputSchema } = this.run.row;
    const shape = outputSchema as JsonSchema | null;
    const result = shape
      ? await this.ask(ask, shapedAnswerQuestion(task, text, shape), shapedAnswerSchema(shape), 'answer', SHAPED_TOKENS)
      : await this.ask(ask, answerQuestion(task, text), ANSWER_SCHEMA, 'answer', ANSWER_TOKENS);
    if (!result) return;
    const said = shape ? shapedAnswer(result.output) : statedAnswer(result.output);
    await this.run.event('step', 'answer_check', `does the page answer it? ${said ? JSON.stringify(said) : 'no'}`, {
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

  /** One question after the step; undefined when the model gave no answer (a failure is a no). */
  private async ask(
    ask: Asking,
    question: string,
    schema: JsonSchema,
    name: string,
    maxOutputTokens: number,
  ): Promise<StepResult | undefined> {
    const { run } = this;
    try {
      const result = await ask.model.step({
        system: ask.system,
        messages: [
          { role: 'user', text: ask.text },
          { role: 'assistant', text: JSON.stringify(ask.answer) },
          { role: 'user', text: run.policy.scrub(question) },
        ],
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
