// What a run hands back (docs/agent.md, "Events and records", "Answer"): the
// records it appends as it goes, and its answer at the end, parsed and
// checked against the caller's output schema (a misfit told to the model,
// which finishes again); neither may show a granted secret's value.
import { z } from 'zod';
import type { StepAction } from '../../domain/step.js';
import { looseAnswer } from '../../domain/strict-schema.js';
import type { JsonSchema } from '../../model/types.js';
import type { RunContext } from './context.js';

export class OutputSystem {
  constructor(private readonly run: RunContext) {}

  /** Appends one record of the run: a JSON object that shows no secret value. */
  async record(action: Extract<StepAction, { action: 'record' }>, results: string[]): Promise<'ok' | 'failed'> {
    let data: unknown;
    try {
      data = JSON.parse(action.json);
    } catch {
      data = undefined;
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      results.push('record: not saved, json must be a JSON object');
      return 'failed';
    }
    if (await this.run.reveals(action.json, 'record', results)) return 'failed';
    const seq = await this.run.fenced.record(data);
    await this.run.event('step', 'record', `record ${seq} appended`, { seq: Number(seq) });
    results.push(`record: saved as #${seq}`);
    return 'ok';
  }

  /**
   * The model finishes: a success's answer must fit the run's output schema, and no answer may show a
   * secret's value ('failed', told to the model); otherwise the run ends here, completed or failed.
   */
  async finish(action: Extract<StepAction, { action: 'finish' }>, results: string[]): Promise<'failed'> {
    const schema = this.run.row.outputSchema as JsonSchema | null;
    let answer = action.answer;
    if (schema && action.success) {
      if (typeof answer === 'string') {
        try {
          answer = JSON.parse(answer);
        } catch {
          // checked below as it is
        }
      }
      answer = looseAnswer(schema, answer);
      const checked = z.fromJSONSchema(schema as never).safeParse(answer);
      if (!checked.success) {
        const issue = checked.error.issues[0];
        this.run.memory.nudge = `Your answer does not fit the output schema (${issue?.path.join('.') || 'answer'}: ${issue?.message}). Finish again with an answer that fits.`;
        results.push('finish: refused, the answer does not fit the output schema');
        await this.run.event('step', 'dead_end', 'the answer does not fit the output schema', {
          issue: issue?.message,
        });
        return 'failed';
      }
    }
    if (await this.run.reveals(JSON.stringify(answer ?? null), 'finish', results)) return 'failed';
    this.run.memory.results = results;
    await this.run.saveProgress();
    if (action.success) return this.run.end('completed', null, answer);
    return this.run.end(
      'failed',
      {
        code: 'task_failed',
        message: typeof answer === 'string' ? answer.slice(0, 500) : 'The agent could not do the task.',
      },
      answer,
    );
  }
}
