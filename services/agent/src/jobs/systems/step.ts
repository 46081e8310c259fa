// One step of a run (docs/agent.md, "The loop"): the page observed, one
// structured model call with the step's message (no secret value in it), the
// answer parsed, its plan and its actions told as events, each action passed
// through the gates and to the system it belongs to, the same action on the
// same page caught as a loop, steps that achieve nothing counted against the
// failure budget, and the step's timing (the model's share and our own).
// A model's step profile (docs/models.md, "Step profiles") sets the step's
// words: `full`, for frontier models, asks for an evaluation, a memory, a plan
// and up to three actions; `compact`, for small local ones, asks for one
// action over only what the page allows, refuses a third blind repeat, and
// asks "is the task done?" after an act the task may end with.
import type { ElementInfo, PageState } from '../../browser/types.js';
import {
  type Before,
  COMPACT_SYSTEM_PROMPT,
  compactMessage,
  compactShape,
  compactView,
  pageLines,
  parseCompact,
  sayAction,
  whatChanged,
} from '../../domain/compact.js';
import { jammedBox } from '../../domain/form-values.js';
import { rememberDated, sectionFor } from '../../domain/hints.js';
import {
  describeAction,
  LOOP_FAIL,
  LOOP_NUDGE,
  type ModelStep,
  parseStep,
  repeats,
  type StepAction,
  type StepShape,
  type StepShapeInput,
  SYSTEM_PROMPT,
  stepMessage,
  stepShape,
} from '../../domain/step.js';
import { PLAN_SCHEMA, planQuestion, statedPlan } from '../../domain/step-questions.js';
import {
  asksDone,
  asksForAnswer,
  doneParts,
  rememberAct,
  rememberPage,
  rememberRefusal,
  taskParts,
} from '../../domain/task-parts.js';
import {
  baseProfile,
  type JsonSchema,
  type ModelClient,
  ModelError,
  type RunProfile,
  type StepResult,
} from '../../model/types.js';
import type { RunStore } from '../../store/runs.js';
import type { BrowserSystem } from './browser.js';
import type { RunContext } from './context.js';
import type { GateSystem } from './gates.js';
import type { MeteringSystem } from './metering.js';
import type { OutputSystem } from './output.js';
import type { PauseSystem } from './pauses.js';
import type { SecretSystem } from './secrets.js';
import { type Asking, StepChecks } from './step-checks.js';
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

/** Times the same action on an unchanged page runs in the compact profile; the next is refused. */
const COMPACT_REPEATS = 2;
/** Refusals in a row before a compact run ends as a loop. */
const COMPACT_REFUSALS = 2;
/** Waits for model capacity a run takes without counting them as failures, and the wait when none is said. */
const MAX_CAPACITY_WAITS = 60;
const CAPACITY_WAIT_MS = 5_000;
/** Of a step's message, the characters its debug event keeps. */
const MODEL_INPUT_SHOWN = 16_000;
/** The lab arm `compact-plan`'s plan: one sentence. */
const PLAN_TOKENS = 48;

/** A step's words for the model, in its profile. */
interface Prepared {
  system: string;
  text: string;
  shape: StepShape;
  parse(output: unknown): { step: ModelStep } | { error: string };
  /** Each element the model may name, by index (compact). */
  infos: Map<number, ElementInfo & { key?: string; label?: string }>;
}

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
        /** Prompt tokens evaluated, the rest from the model's cache; waiting for the model's turn. */
        evaluatedInputTokens?: number;
        queueMs?: number;
        profile: RunProfile;
      }
    | undefined;
  /** The full profile's schema: the same every step of the run. */
  private fullShape: StepShape | undefined;
  /** New documents the last action performed loaded (a link followed, a form sent). */
  private documents = 0;
  /** The fields that kept the last action's form from being sent, when the browser refused it. */
  private unsent: string[] | undefined;
  /** Whether this claim of the run asked for its plan (`compact-plan`), answered or not. */
  private planAsked = false;
  /** The compact profile's last act: the page it was on and how the next message tells it. */
  private before: (Before & { said: string }) | undefined;
  /** The short questions after an act: is the task done, does the page answer it. */
  private readonly checks: StepChecks;

  constructor(
    private readonly run: RunContext,
    private readonly systems: StepSystems,
    /** The run's handed files, named in the step's message. */
    private readonly store: RunStore,
  ) {
    run.onEnd('before', () => this.timing());
    this.checks = new StepChecks(run, systems, (result) => {
      this.charge(result);
      this.addCall(result);
    });
  }

  /** Observes the page, asks `model` for the step (in its profile, with the run's `grants`) and runs its actions. */
  async step(model: ModelClient, grants: StepShapeInput): Promise<void> {
    const { run } = this;
    const { memory } = run;
    // What the run asked for (a lab arm, or a profile other than its model's), or the model's own.
    const asked = (run.row.stepProfile as RunProfile | null) ?? model.profile ?? 'full';
    const profile = baseProfile(asked);
    const began = performance.now();
    const page = await this.systems.browser.observe(model.vision);
    const observeMs = performance.now() - began;
    const planned = asked === 'compact-plan' ? await this.statePlan(model, page) : undefined;
    if (run.signal.aborted || run.stepAbort.signal.aborted) return;
    const prepared = profile === 'compact' ? await this.compact(page, grants) : await this.full(page, grants);
    // What the model is shown (scrubbed of every secret value): why a step went as it did.
    await run.event('debug', 'model_input', `step ${run.steps + 1}: the model's input`, {
      system: prepared.system.length,
      text: prepared.text.slice(0, MODEL_INPUT_SHOWN),
    });
    // The reply and the notes are said once.
    memory.reply = undefined;
    memory.nudge = undefined;
    memory.extracted = undefined;
    let result: StepResult;
    const modelStarted = performance.now();
    try {
      result = await model.step({
        system: prepared.system,
        messages: [{ role: 'user', text: prepared.text, ...(page.screenshot && { images: [page.screenshot] }) }],
        schema: prepared.shape.schema,
        schemaName: prepared.shape.name,
        signal: AbortSignal.any([run.stepAbort.signal, run.signal]),
      });
    } catch (err) {
      if (run.stepAbort.signal.aborted || run.signal.aborted) return; // taken over, cancelled or stopping: the checkpoint decides
      return this.modelFailed(err);
    }
    const modelMs = performance.now() - modelStarted;
    memory.capacityWaits = 0;
    this.current = {
      began,
      modelMs,
      observeMs,
      actMs: 0,
      usage: result.usage,
      profile: asked,
      ...(result.evaluatedInputTokens !== undefined && { evaluatedInputTokens: result.evaluatedInputTokens }),
      ...(result.queueMs !== undefined && { queueMs: result.queueMs }),
    };
    this.charge(result);
    if (planned) this.addCall(planned);
    const parsed = prepared.parse(result.output);
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
      profile: asked,
      evaluation: step.evaluation,
      actions,
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
    });
    if (profile === 'compact')
      return this.compactAct(model, page, prepared, step.actions[0] as StepAction, result.output);
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

  /** The full profile's words: the plan, memory and last results, the whole element list; one schema a run. */
  private async full(page: PageState, grants: StepShapeInput): Promise<Prepared> {
    const { row, memory, policy, plan, steps } = this.run;
    const files = await this.store.files(row.id);
    // Every secret value out of what the model reads: the page's text may show one.
    const text = policy.scrub(
      stepMessage({
        task: row.task,
        step: steps + 1,
        maxSteps: row.maxSteps,
        plan,
        memory,
        files,
        grants: policy.describe(),
        page,
      }),
    );
    this.fullShape ??= stepShape(grants);
    return { system: SYSTEM_PROMPT, text, shape: this.fullShape, parse: parseStep, infos: new Map() };
  }

  /** The compact profile's words: the task, the page's view within its budget, what the last act did. */
  private async compact(page: PageState, grants: StepShapeInput): Promise<Prepared> {
    const { row, memory, policy } = this.run;
    const files = await this.store.files(row.id);
    const view = compactView(page, row.task);
    rememberPage(
      row.task,
      memory,
      [page.title, ...page.outline.flatMap((e) => (e.kind === 'text' ? [e.text] : []))].join('\n'),
    );
    const refused = memory.refused?.fingerprint === page.fingerprint ? memory.refused.actions : [];
    // What this run set and still holds its setting (a box it ticked, a field it typed into, a select it
    // chose in, a section it opened) is not offered again: a second click unticks a box, and a redone part is the small
    // model's commonest loop.
    const keep = new Set<number>();
    const opened = (info: ElementInfo) => info.role === 'button' && info.expanded === true;
    for (const e of page.outline)
      if (e.kind === 'element' && memory.ticked?.includes(e.key) && (e.info.checked || e.info.value || opened(e.info)))
        keep.add(e.index);
    const chosen = page.outline.find((e) => e.kind === 'element' && !!memory.writing && e.key === memory.writing);
    const at = chosen?.kind === 'element' ? chosen.index : undefined;
    const writing = view.shown.some((e) => e.index === at) ? at : undefined;
    // A combobox that took two values at once and lists nothing for them is typed into again, alone.
    const jammed = memory.choosing ? jammedBox(row.task, view.shown)?.box.index : undefined;
    if (jammed !== undefined) keep.delete(jammed);
    const part = taskParts(row.task).find((_, i) => !doneParts(row.task, memory).has(i));
    const only = sectionFor(part, page.outline);
    const shape = compactShape(view, { ...grants, refused, keep, task: row.task, writing: writing ?? jammed, only });
    const last = this.before
      ? `${this.before.said}; ${whatChanged(this.before, page)}`
      : memory.results.join('; ') || undefined;
    const text = policy.scrub(
      compactMessage({
        ...{ task: row.task, grants: policy.describe(), files, memory, page, view, last, keep, writing },
        // Only a lab arm states a plan in the compact profile.
        ...(this.run.plan[0] && { plan: this.run.plan[0] }),
        ...(row.outputSchema ? { outputSchema: row.outputSchema as JsonSchema } : {}),
      }),
    );
    rememberDated(row.task, memory, page.outline);
    const labels = new Map(view.shown.map((e) => [e.index, e.label]));
    const infos = new Map<number, ElementInfo & { key?: string; label?: string }>();
    for (const entry of page.outline)
      if (entry.kind === 'element')
        infos.set(entry.index, { ...entry.info, key: entry.key, label: labels.get(entry.index) ?? entry.info.name });
    return {
      system: COMPACT_SYSTEM_PROMPT,
      text,
      shape,
      parse: (output) => parseCompact(output, view, row.task),
      infos,
    };
  }

  /**
   * The compact profile's one action: refused when it already ran twice on this page without changing
   * it (and not offered again there; two refusals in a row end the run as a loop), else run; then,
   * after an act the task may end with, the question whether the task is done, and after one of a
   * task that asks something, whether the page now answers it.
   */
  private async compactAct(
    model: ModelClient,
    page: PageState,
    prepared: Prepared,
    action: StepAction,
    answer: unknown,
  ) {
    const { run } = this;
    const { memory } = run;
    const info = 'index' in action ? prepared.infos.get(action.index) : undefined;
    const said = sayAction(action, info, info?.label);
    if (await this.finishesEarly(action)) return this.afterStep();
    const key = `${page.fingerprint}|${describeAction(action)}`;
    // Run twice in a row on a page it left as it was, or twice before from this same page between other
    // acts (a toggle opened and closed, a round trip): a third time is refused.
    const stuck = repeats(memory.recent, key) >= COMPACT_REPEATS;
    const times = stuck ? repeats(memory.recent, key) : memory.recent.filter((k) => k === key).length;
    const why = stuck ? `changed nothing the last ${times} times` : `was done from this same page ${times} times`;
    if (times >= COMPACT_REPEATS) {
      memory.refusals = (memory.refusals ?? 0) + 1;
      const before = memory.refused?.fingerprint === page.fingerprint ? memory.refused.actions : [];
      memory.refused = { fingerprint: page.fingerprint, actions: [...before, describeAction(action)].slice(-20) };
      await run.event('step', 'dead_end', `refused: ${describeAction(action)} ${why}`, {
        times,
        refusals: memory.refusals,
      });
      if (memory.refusals >= COMPACT_REFUSALS)
        return run.end('failed', {
          code: 'loop_detected',
          message: `The model kept choosing actions that changed nothing (${describeAction(action)}, ${times} times).`,
        });
      this.before = undefined;
      memory.results = [`${said}: not done again, it ${why}`];
      memory.nudge = 'Choose another element or action.';
      await this.failed(true);
      return this.afterStep();
    }
    memory.recent = [...memory.recent, key].slice(-20);
    const results: string[] = [];
    const done = await this.perform(action, results, false, page.url);
    if (done === 'stop') return this.afterStep();
    memory.results = results;
    const worked = done !== 'failed';
    if (worked) memory.refusals = 0;
    this.before = {
      url: page.url,
      fingerprint: page.fingerprint,
      lines: pageLines(page),
      ...(info?.key && { targetKey: info.key }),
      said: !worked
        ? `${said}, which failed: ${(results.at(-1) ?? '').slice(0, 200)}`
        : this.unsent?.length
          ? `${said}, but the form was not sent: ${this.unsent.map((n) => JSON.stringify(n)).join(', ')} must be filled in first`
          : said,
    };
    const partsBefore = memory.partsDone?.length ?? 0;
    rememberAct(run.row.task, memory, { action, info, said, worked, documents: this.documents });
    if (worked && this.unsent?.length) memory.incomplete = true;
    await this.failed(!worked);
    const running = run.latest.status !== 'settled';
    const open = !run.row.outputSchema && running;
    const acts = open && !asksForAnswer(run.row.task);
    // A run with an output schema wants an answer of that shape, whatever its task's words.
    const answers = running && (!!run.row.outputSchema || asksForAnswer(run.row.task));
    // A send the page refused ("Enter your full name."): not done, whatever the parts say.
    const sends = (action.action === 'click' && info?.role === 'button') || action.action === 'press';
    const refused =
      worked && acts && sends
        ? await this.checks.refused(this.before, this.documents > 0, memory.pageRefused)
        : undefined;
    if (refused) rememberRefusal(run.row.task, memory, refused, (memory.partsDone ?? []).slice(partsBefore));
    else if (worked && acts && (await this.checks.allPartsDone(action, page, info))) {
      await this.systems.output.finish(
        { action: 'finish', success: true, answer: `Done: ${(memory.done ?? []).join('; ')}` },
        [],
      );
      return this.afterStep();
    }
    // The question goes on from the step's own message and answer.
    const ask: Asking = { model, system: prepared.system, text: prepared.text, answer };
    if (refused) return this.afterStep();
    if (worked && acts && asksDone(run.row.task, action, info)) await this.checks.done(ask, this.before);
    else if (worked && answers) await this.checks.answer(ask, this.before);
    await this.afterStep();
  }

  /** A finish StepChecks refuses as early is refused once, what is left said (docs/models.md). */
  private async finishesEarly(action: StepAction): Promise<boolean> {
    const { memory } = this.run;
    if (action.action !== 'finish' || !action.success || memory.earlyFinish) return false;
    const refusal = await this.checks.earlyFinish(action);
    if (!refusal) return false;
    memory.earlyFinish = true;
    await this.run.event('step', 'dead_end', `refused: ${refusal.why}`, refusal.data);
    memory.results = [`finish: not done, ${refusal.why}`];
    memory.nudge = refusal.nudge;
    this.before = undefined;
    await this.failed(true);
    return true;
  }

  /** A model call's tokens, on the run and its metering (priced at zero, counted). */
  private charge(result: StepResult): void {
    this.run.inputTokens += BigInt(result.usage.inputTokens);
    this.run.outputTokens += BigInt(result.usage.outputTokens);
    this.systems.metering.add('tokens', BigInt(result.usage.inputTokens + result.usage.outputTokens));
  }

  /** A second call of the step (the plan, the done check) in its timing: its model time and tokens. */
  private addCall(result: StepResult): void {
    if (!this.current) return;
    this.current.modelMs += result.ms;
    this.current.usage = {
      inputTokens: this.current.usage.inputTokens + result.usage.inputTokens,
      outputTokens: this.current.usage.outputTokens + result.usage.outputTokens,
    };
    if (this.current.evaluatedInputTokens !== undefined && result.evaluatedInputTokens !== undefined)
      this.current.evaluatedInputTokens += result.evaluatedInputTokens;
  }

  /**
   * The lab arm `compact-plan`: at the run's first step, the model states its plan in one sentence,
   * kept on the run and put in every step's message; a run that stated one (or whose model could not)
   * is not asked again. The call is charged now and timed with the step it opens.
   */
  private async statePlan(model: ModelClient, page: PageState): Promise<StepResult | undefined> {
    const { run } = this;
    if (run.plan.length > 0 || this.planAsked) return undefined;
    this.planAsked = true;
    let result: StepResult;
    try {
      result = await model.step({
        system: COMPACT_SYSTEM_PROMPT,
        messages: [{ role: 'user', text: run.policy.scrub(planQuestion(run.row.task, page)) }],
        schema: PLAN_SCHEMA,
        schemaName: 'compact_plan',
        maxOutputTokens: PLAN_TOKENS,
        signal: AbortSignal.any([run.stepAbort.signal, run.signal]),
      });
    } catch {
      return undefined; // no plan: the steps go on without one
    }
    this.charge(result);
    const plan = statedPlan(result.output);
    if (plan) {
      run.plan = [plan];
      await run.event('summary', 'plan', 'plan stated', {
        plan: run.plan,
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
      });
    }
    return result;
  }

  /**
   * Runs one action, the gates first, then the system it belongs to. Whether the page changed is
   * looked for only when `more` actions follow.
   */
  private async perform(action: StepAction, results: string[], more: boolean, pageUrl: string): Promise<Done> {
    const { gates, secrets, tools, output, pauses, browser } = this.systems;
    this.documents = 0;
    this.unsent = undefined;
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
        const { done, actMs, documents, unsent } = await browser.act(action, results, more);
        if (this.current) this.current.actMs += actMs;
        this.documents = documents;
        this.unsent = unsent;
        return done;
      }
    }
  }

  private async modelFailed(err: unknown): Promise<void> {
    const e = err instanceof ModelError ? err : new ModelError(String((err as Error)?.message ?? err), 'unavailable');
    const { memory } = this.run;
    if (e.noCapacity && (memory.capacityWaits ?? 0) < MAX_CAPACITY_WAITS) {
      // No capacity (the embedded model's queue full, a provider's 429 or 529): the run waits, unbilled
      // and uncounted, and says so with the code a caller would get for the same.
      memory.capacityWaits = (memory.capacityWaits ?? 0) + 1;
      const retryAfterSeconds = Math.max(1, Math.ceil((e.retryAfterMs ?? CAPACITY_WAIT_MS) / 1000));
      await this.run.event('step', 'waiting', `decode_unavailable: ${e.message.slice(0, 200)}`, {
        for: 'model',
        code: 'decode_unavailable',
        retryAfterSeconds,
      });
      return this.run.idle(retryAfterSeconds * 1000);
    }
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
      profile: step.profile,
      ...(step.evaluatedInputTokens !== undefined && { evaluatedInputTokens: step.evaluatedInputTokens }),
      ...(step.queueMs !== undefined && { queueMs: Math.round(step.queueMs) }),
    });
  }
}
