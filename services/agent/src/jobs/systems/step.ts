// One step of a run (docs/agent.md, "The loop"): the page observed, one
// structured model call with the step's message (no secret value in it), the
// answer parsed, its plan and its actions told as events, each action passed
// through the gates and to the system it belongs to, the same action on the
// same page caught as a loop, steps that achieve nothing counted against the
// failure budget, and the step's timing (the model's share and our own).
import {
  describeAction,
  LOOP_FAIL,
  LOOP_NUDGE,
  parseStep,
  repeats,
  type StepAction,
  type StepShape,
  SYSTEM_PROMPT,
  stepMessage,
} from '../../domain/step.js';
import { type ModelClient, ModelError } from '../../model/types.js';
import type { RunStore } from '../../store/runs.js';
import type { BrowserSystem } from './browser.js';
import type { RunContext } from './context.js';
import type { GateSystem } from './gates.js';
import type { MeteringSystem } from './metering.js';
import type { OutputSystem } from './output.js';
import type { PauseSystem } from './pauses.js';
import type { SecretSystem } from './secrets.js';
import type { ToolSystem } from './tools.js';

/** Steps in a row that achieve nothing before the run fails. */
export const FAILURE_BUDGET = 5;

/** The systems a step hands its actions to. */
export interface StepSystems {
  metering: MeteringSystem;
  browser: BrowserSystem;
  pauses: PauseSystem;
  gates: GateSystem;
  secrets: SecretSystem;
  tools: ToolSystem;
  output: OutputSystem;
}

/** What one action did: 'changed' when the page changed (the step's later actions are skipped), 'stop' when the run paused. */
type Done = 'ok' | 'failed' | 'changed' | 'stop';

export class StepSystem {
  /** The step in flight: its start and its model's share, for the timing event (also of the step that ends the run). */
  private current:
    | {
        began: number;
        modelMs: number;
        /** Reading the page, and running the actions in the browser: parts of our own time. */
        observeMs: number;
        actMs: number;
        usage: { inputTokens: number; outputTokens: number };
      }
    | undefined;

  constructor(
    private readonly run: RunContext,
    private readonly systems: StepSystems,
    /** The run's handed files, named in the step's message. */
    private readonly store: RunStore,
  ) {
    run.onEnd('before', () => this.timing());
  }

  /** Observes the page, asks `model` for the step (in `shape`) and runs its actions. */
  async step(model: ModelClient, shape: StepShape): Promise<void> {
    const { run } = this;
    const { row, memory, policy } = run;
    const began = performance.now();
    const page = await this.systems.browser.observe(model.vision);
    const observeMs = performance.now() - began;
    const files = await this.store.files(row.id);
    // Every secret value out of what the model reads: the page's text may show one.
    const text = policy.scrub(
      stepMessage({
        task: row.task,
        step: run.steps + 1,
        maxSteps: row.maxSteps,
        plan: run.plan,
        memory,
        files,
        grants: policy.describe(),
        page,
      }),
    );
    // The reply and the notes are said once.
    memory.reply = undefined;
    memory.nudge = undefined;
    memory.extracted = undefined;
    let result: Awaited<ReturnType<ModelClient['step']>>;
    const modelStarted = performance.now();
    try {
      result = await model.step({
        system: SYSTEM_PROMPT,
        messages: [{ role: 'user', text, ...(page.screenshot && { images: [page.screenshot] }) }],
        schema: shape.schema,
        schemaName: shape.name,
        signal: AbortSignal.any([run.stepAbort.signal, run.signal]),
      });
    } catch (err) {
      if (run.stepAbort.signal.aborted || run.signal.aborted) return; // taken over, cancelled or stopping: the checkpoint decides
      return this.modelFailed(err);
    }
    const modelMs = performance.now() - modelStarted;
    this.current = { began, modelMs, observeMs, actMs: 0, usage: result.usage };
    run.inputTokens += BigInt(result.usage.inputTokens);
    run.outputTokens += BigInt(result.usage.outputTokens);
    this.systems.metering.add('tokens', BigInt(result.usage.inputTokens + result.usage.outputTokens));
    const parsed = parseStep(result.output);
    run.steps++;
    if ('error' in parsed) {
      memory.nudge = `Your last answer could not be used (${parsed.error}). Answer with the JSON object asked for.`;
      await run.event('step', 'dead_end', `step ${run.steps}: the model's answer could not be used`, {
        error: parsed.error,
      });
      await this.failed(true);
      return this.afterStep();
    }
    const { step } = parsed;
    memory.memory = step.memory;
    if (step.plan.length > 0 && JSON.stringify(step.plan) !== JSON.stringify(run.plan)) {
      run.plan = step.plan;
      await run.event('summary', 'plan', 'plan stated', { plan: step.plan });
    }
    const actions = step.actions.map(describeAction);
    await run.event('step', 'step', `step ${run.steps}: ${actions.join(', ')}`, {
      step: run.steps,
      evaluation: step.evaluation,
      actions,
    });
    const results: string[] = [];
    let achieved = false;
    for (const [i, action] of step.actions.entries()) {
      const key = `${page.fingerprint}|${describeAction(action)}`;
      const times = repeats(memory.recent, key) + 1;
      memory.recent = [...memory.recent, key].slice(-20);
      if (times >= LOOP_FAIL)
        return run.end('failed', {
          code: 'loop_detected',
          message: `The same action (${describeAction(action)}) was repeated ${times} times on the same page.`,
        });
      if (times >= LOOP_NUDGE) {
        memory.nudge = `You did "${describeAction(action)}" ${times} times on the same page without effect. Do something else.`;
        await run.event('step', 'dead_end', `loop: ${describeAction(action)} repeated ${times} times`, { times });
      }
      const done = await this.perform(action, results, i < step.actions.length - 1, page.url);
      if (done === 'stop') return this.afterStep();
      if (done === 'ok') achieved = true;
      if (done === 'changed') {
        achieved = true;
        break;
      }
      if (run.stepAbort.signal.aborted) break;
    }
    memory.results = results;
    await this.failed(!achieved);
    await this.afterStep();
  }

  /**
   * Runs one action, the gates first, then the system it belongs to. Whether the page changed is
   * looked for only when `more` actions follow.
   */
  private async perform(action: StepAction, results: string[], more: boolean, pageUrl: string): Promise<Done> {
    const { gates, secrets, tools, output, pauses, browser } = this.systems;
    const gated = await gates.check(action, pageUrl, results);
    if (gated) return gated;
    switch (action.action) {
      case 'fill_secret':
        return secrets.fill(action, results, pageUrl);
      case 'purchase':
        return secrets.purchase(action, results, pageUrl);
      case 'call_tool':
        return tools.call(action, results);
      case 'record':
        return output.record(action, results);
      case 'ask':
        return pauses.ask(action.question, results);
      case 'finish':
        return output.finish(action, results);
      default: {
        const { done, actMs } = await browser.act(action, results, more);
        if (this.current) this.current.actMs += actMs;
        return done;
      }
    }
  }

  private async modelFailed(err: unknown): Promise<void> {
    const e = err instanceof ModelError ? err : new ModelError(String((err as Error)?.message ?? err), 'unavailable');
    await this.run.event('step', 'dead_end', `the model call failed: ${e.message.slice(0, 200)}`, { kind: e.kind });
    if (!e.retryable && e.kind !== 'bad_output')
      return this.run.end('failed', {
        code: 'model_error',
        message: `The model could not be used: ${e.message.slice(0, 200)}`,
      });
    if (e.kind === 'bad_output') this.run.memory.nudge = 'Your last answer was not the JSON object asked for.';
    await this.failed(true);
    if (e.retryable) await this.run.idle(2_000);
  }

  /** Counts a step that achieved nothing; the run fails past the budget. */
  private async failed(nothing: boolean): Promise<void> {
    const { memory } = this.run;
    memory.failures = nothing ? memory.failures + 1 : 0;
    if (memory.failures >= FAILURE_BUDGET)
      await this.run.end('failed', {
        code: 'too_many_failures',
        message: `${FAILURE_BUDGET} steps in a row achieved nothing.`,
      });
  }

  private async afterStep(): Promise<void> {
    this.systems.metering.accrue();
    await this.run.saveProgress();
    await this.systems.metering.settle();
    await this.timing();
  }

  /** The step's timing event: the model's share and ours (what the bench splits). */
  private async timing(): Promise<void> {
    const step = this.current;
    if (!step) return;
    this.current = undefined;
    const totalMs = performance.now() - step.began;
    await this.run.event('debug', 'timing', `step ${this.run.steps} took ${Math.round(totalMs)} ms`, {
      step: this.run.steps,
      modelMs: Math.round(step.modelMs),
      overheadMs: Math.round(totalMs - step.modelMs),
      observeMs: Math.round(step.observeMs),
      actMs: Math.round(step.actMs),
      // The rest of our own time: the database, the ledger, the events.
      bookkeepingMs: Math.round(totalMs - step.modelMs - step.observeMs - step.actMs),
      inputTokens: step.usage.inputTokens,
      outputTokens: step.usage.outputTokens,
    });
  }
}
