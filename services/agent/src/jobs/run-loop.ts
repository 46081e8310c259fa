// One claimed run, driven to its end or until this replica lets it go: its
// browser (a browser-host session, reconnected when another replica drove it
// before), its metered hold (agent and browser seconds while it runs, a page
// per document, tokens at zero), and the loop of steps: observe the page, one
// structured model call, up to MAX_ACTIONS actions, events written as they
// happen. Paused time (a question, a person driving) is not metered.
import { setTimeout as sleep } from 'node:timers/promises';
import type { LedgerClient } from '@wap/billing';
import type { Logger } from '@wap/log';
import { type BrowserHosts } from '@wap/rpc';
import type { BrowserDriver } from '../browser/types.js';
import type { ModelRegistry } from '../clients/models.js';
import {
  describeAction,
  LOOP_FAIL,
  LOOP_NUDGE,
  parseStep,
  repeats,
  type StepAction,
  SYSTEM_PROMPT,
  stepMessage,
  stepShape,
} from '../domain/step.js';
import { ModelError } from '../model/types.js';
import { ClaimLost } from '../store/fenced.js';
import { type PauseStore } from '../store/pauses.js';
import type { RunRow, RunStore } from '../store/runs.js';
import { type PolicyDeps, RunPolicy } from './run-policy.js';
import { BrowserSystem } from './systems/browser.js';
import { RunContext, Stop } from './systems/context.js';
import { GateSystem } from './systems/gates.js';
import { MeteringSystem } from './systems/metering.js';
import { OutputSystem } from './systems/output.js';
import { PauseSystem } from './systems/pauses.js';
import { SecretSystem } from './systems/secrets.js';
import { ToolSystem } from './systems/tools.js';

/** Steps in a row that achieve nothing before the run fails. */
export const FAILURE_BUDGET = 5;

export interface LoopDeps {
  store: RunStore;
  pauses: PauseStore;
  ledger: LedgerClient;
  hosts: BrowserHosts;
  models: ModelRegistry;
  log: Logger;
  replica: string;
  leaseMs: number;
  filesKey: string | undefined;
  /** What the run's grants and the workspace's rules are read from (none: nothing granted, no rules). */
  policy?: PolicyDeps;
  /** How long a run paused for an approval waits for it. */
  approvalTimeoutMs: number;
  /** The key an approval's CVC is sealed with (the secrets' key); unset, no CVC is taken. */
  secretsKey?: string;
  /** Tells the session's host a person handed the wheel back: its guard on the person's navigations ends at once. */
  releaseControl(sessionId: string): Promise<void>;
  /** Connects to the run's session and wraps it for the loop (Playwright over the host's CDP endpoint). */
  openDriver(webSocketUrl: string): Promise<BrowserDriver & { endSession(): Promise<void> }>;
}

export class RunLoop {
  private readonly context: RunContext;
  private readonly metering: MeteringSystem;
  private readonly browser: BrowserSystem;
  private readonly pauses: PauseSystem;
  private readonly gates: GateSystem;
  private readonly secrets: SecretSystem;
  private readonly tools: ToolSystem;
  private readonly output: OutputSystem;
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
  private renewal: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: LoopDeps,
    row: RunRow,
    private readonly signal: AbortSignal,
  ) {
    this.context = new RunContext(row, deps.store.fenced(row.id, deps.replica), {
      leaseMs: deps.leaseMs,
      log: deps.log,
      signal,
    });
    this.metering = new MeteringSystem(this.context, deps.ledger);
    this.browser = new BrowserSystem(this.context, this.metering, deps);
    this.pauses = new PauseSystem(this.context, this.metering, this.browser, deps);
    this.gates = new GateSystem(this.context, this.metering, this.browser, this.pauses);
    this.secrets = new SecretSystem(this.context, this.browser, this.pauses, {
      intents: deps.policy?.intents,
      secretsKey: deps.secretsKey,
    });
    this.tools = new ToolSystem(this.context, deps.policy?.integrations);
    this.output = new OutputSystem(this.context);
    this.context.onEnd('before', () => this.timing());
  }

  /** Drives the run; resolves when it settled or was let go. Never throws. */
  async run(): Promise<void> {
    this.renewal = setInterval(() => void this.context.renew().catch(() => undefined), this.deps.leaseMs / 3);
    this.signal.addEventListener('abort', () => this.context.stepAbort.abort(), { once: true });
    try {
      await this.drive();
    } catch (err) {
      if (err instanceof ClaimLost) this.context.log.warn('the run was taken by another replica; this one stops');
      else if (!(err instanceof Stop)) {
        this.context.log.error({ err }, 'run loop failed');
        await this.context
          .end('failed', { code: 'internal', message: 'The run stopped on an internal error.' })
          .catch(() => undefined);
      }
    } finally {
      clearInterval(this.renewal);
      // Let go without ending: the session waits for the next replica (SESSION_IDLE_SECONDS).
      if (this.context.latest.status !== 'settled') {
        await this.metering.release();
        await this.browser.letGo();
        await this.context.fenced.release().catch(() => undefined);
      }
    }
  }

  /** Asked by a wake message: look now. */
  poke(): void {
    void this.context.renew().catch(() => undefined);
  }

  private async drive(): Promise<void> {
    const row = this.context.row;
    await this.metering.recover();
    if (row.cancelRequested) return this.context.cancelled();
    const model = this.deps.models.get(row.model);
    if (!model)
      return this.context.end('failed', {
        code: 'capability_unavailable',
        message: `The model ${row.model} is not served.`,
      });
    await this.untilReady(model);
    if (this.deps.policy) this.context.policy = await RunPolicy.load(this.deps.policy, row);
    await this.metering.open();
    const fresh = !row.sessionId;
    const sessionId = await this.browser.open();
    if (fresh) {
      await this.context.fenced.started(sessionId);
      await this.context.event('summary', 'status', 'running', { status: 'running', sessionId });
      // An integration gone or changed since the submit is told once, at the start.
      for (const note of this.context.policy.notes) {
        await this.context.event('summary', 'integration', `${note.code}: ${note.message}`, note);
        this.context.memory.results.push(`integration unavailable (${note.code}): ${JSON.stringify(note.details)}`);
      }
    } else await this.context.event('step', 'resumed', 'resumed by another replica', { attempt: row.attempt });
    this.metering.resumeClock();
    if (fresh && row.startUrl) await this.browser.startPage(row.startUrl);
    const shape = stepShape({
      ...(row.outputSchema ? { outputSchema: row.outputSchema as Record<string, unknown> } : {}),
      ...this.context.policy.stepGrants(true),
    });
    for (;;) {
      await this.pauses.checkpoint(async (decision) => {
        // A purchase's decision is the secrets'; any other, an action a rule gates.
        if (!(await this.secrets.decided(decision))) this.gates.decided(decision);
      });
      if (this.context.steps >= row.maxSteps)
        return this.context.end('failed', {
          code: 'max_steps',
          message: `The step cap (${row.maxSteps}) was reached.`,
        });
      if (this.metering.overCap())
        return this.context.end('failed', {
          code: 'cap_exceeded',
          message: `The spend cap (${row.maxCredits} credits) would be passed by another step.`,
        });
      await this.step(row, model, shape);
    }
  }

  /**
   * A model that cannot answer yet (the embedded one still being fetched): the run waits queued,
   * before it takes a browser or a hold, so the wait costs nothing; it says why once.
   */
  private async untilReady(model: NonNullable<ReturnType<ModelRegistry['get']>>): Promise<void> {
    let said = false;
    for (let state = model.ready?.(); state && !state.ready; state = model.ready?.()) {
      if (!said) await this.context.event('summary', 'waiting', state.why, { for: 'model' });
      said = true;
      const row = await this.context.renew();
      if (row.cancelRequested) return this.context.cancelled();
      await sleep(2_000, undefined, { signal: this.signal }).catch(() => undefined);
      if (this.signal.aborted) throw new Stop();
    }
  }

  private async step(
    row: RunRow,
    model: NonNullable<ReturnType<ModelRegistry['get']>>,
    shape: ReturnType<typeof stepShape>,
  ) {
    const began = performance.now();
    const page = await this.browser.observe(model.vision);
    const observeMs = performance.now() - began;
    const files = await this.deps.store.files(row.id);
    // Every secret value out of what the model reads: the page's text may show one.
    const text = this.context.policy.scrub(
      stepMessage({
        task: row.task,
        step: this.context.steps + 1,
        maxSteps: row.maxSteps,
        plan: this.context.plan,
        memory: this.context.memory,
        files,
        grants: this.context.policy.describe(),
        page,
      }),
    );
    // The reply and the notes are said once.
    this.context.memory.reply = undefined;
    this.context.memory.nudge = undefined;
    this.context.memory.extracted = undefined;
    let result: Awaited<ReturnType<typeof model.step>>;
    const modelStarted = performance.now();
    try {
      result = await model.step({
        system: SYSTEM_PROMPT,
        messages: [{ role: 'user', text, ...(page.screenshot && { images: [page.screenshot] }) }],
        schema: shape.schema,
        schemaName: shape.name,
        signal: AbortSignal.any([this.context.stepAbort.signal, this.signal]),
      });
    } catch (err) {
      if (this.context.stepAbort.signal.aborted || this.signal.aborted) return; // taken over, cancelled or stopping: the checkpoint decides
      return this.modelFailed(err);
    }
    const modelMs = performance.now() - modelStarted;
    this.current = { began, modelMs, observeMs, actMs: 0, usage: result.usage };
    this.context.inputTokens += BigInt(result.usage.inputTokens);
    this.context.outputTokens += BigInt(result.usage.outputTokens);
    this.metering.add('tokens', BigInt(result.usage.inputTokens + result.usage.outputTokens));
    const parsed = parseStep(result.output);
    this.context.steps++;
    if ('error' in parsed) {
      this.context.memory.nudge = `Your last answer could not be used (${parsed.error}). Answer with the JSON object asked for.`;
      await this.context.event('step', 'dead_end', `step ${this.context.steps}: the model's answer could not be used`, {
        error: parsed.error,
      });
      await this.failed(true);
      return this.afterStep();
    }
    const { step } = parsed;
    this.context.memory.memory = step.memory;
    if (step.plan.length > 0 && JSON.stringify(step.plan) !== JSON.stringify(this.context.plan)) {
      this.context.plan = step.plan;
      await this.context.event('summary', 'plan', 'plan stated', { plan: step.plan });
    }
    await this.context.event(
      'step',
      'step',
      `step ${this.context.steps}: ${step.actions.map(describeAction).join(', ')}`,
      {
        step: this.context.steps,
        evaluation: step.evaluation,
        actions: step.actions.map(describeAction),
      },
    );
    const results: string[] = [];
    let achieved = false;
    for (const [i, action] of step.actions.entries()) {
      const key = `${page.fingerprint}|${describeAction(action)}`;
      const times = repeats(this.context.memory.recent, key) + 1;
      this.context.memory.recent = [...this.context.memory.recent, key].slice(-20);
      if (times >= LOOP_FAIL)
        return this.context.end('failed', {
          code: 'loop_detected',
          message: `The same action (${describeAction(action)}) was repeated ${times} times on the same page.`,
        });
      if (times >= LOOP_NUDGE) {
        this.context.memory.nudge = `You did "${describeAction(action)}" ${times} times on the same page without effect. Do something else.`;
        await this.context.event('step', 'dead_end', `loop: ${describeAction(action)} repeated ${times} times`, {
          times,
        });
      }
      const done = await this.perform(row, action, results, i < step.actions.length - 1, page.url);
      if (done === 'stop') return this.afterStep();
      if (done === 'ok') achieved = true;
      if (done === 'changed') {
        achieved = true;
        break;
      }
      if (this.context.stepAbort.signal.aborted) break;
    }
    this.context.memory.results = results;
    await this.failed(!achieved);
    await this.afterStep();
  }

  /**
   * Runs one action: 'changed' when the page changed (the step's later actions are skipped), 'stop'
   * when the run paused or ended. Whether the page changed is looked for only when `more` actions follow.
   */
  private async perform(
    _row: RunRow,
    action: StepAction,
    results: string[],
    more: boolean,
    pageUrl: string,
  ): Promise<'ok' | 'failed' | 'changed' | 'stop'> {
    const gated = await this.gates.check(action, pageUrl, results);
    if (gated) return gated;
    switch (action.action) {
      case 'fill_secret':
        return this.secrets.fill(action, results, pageUrl);
      case 'purchase':
        return this.secrets.purchase(action, results, pageUrl);
      case 'call_tool':
        return this.tools.call(action, results);
      case 'record':
        return this.output.record(action, results);
      case 'ask':
        return this.pauses.ask(action.question, results);
      case 'finish':
        return this.output.finish(action, results);
      default: {
        const { done, actMs } = await this.browser.act(action, results, more);
        if (this.current) this.current.actMs += actMs;
        return done;
      }
    }
  }

  private async modelFailed(err: unknown): Promise<void> {
    const e = err instanceof ModelError ? err : new ModelError(String((err as Error)?.message ?? err), 'unavailable');
    await this.context.event('step', 'dead_end', `the model call failed: ${e.message.slice(0, 200)}`, { kind: e.kind });
    if (!e.retryable && e.kind !== 'bad_output')
      return this.context.end('failed', {
        code: 'model_error',
        message: `The model could not be used: ${e.message.slice(0, 200)}`,
      });
    if (e.kind === 'bad_output') this.context.memory.nudge = 'Your last answer was not the JSON object asked for.';
    await this.failed(true);
    if (e.retryable) await sleep(2_000, undefined, { signal: this.signal }).catch(() => undefined);
  }

  /** Counts a step that achieved nothing; the run fails past the budget. */
  private async failed(nothing: boolean): Promise<void> {
    this.context.memory.failures = nothing ? this.context.memory.failures + 1 : 0;
    if (this.context.memory.failures >= FAILURE_BUDGET)
      await this.context.end('failed', {
        code: 'too_many_failures',
        message: `${FAILURE_BUDGET} steps in a row achieved nothing.`,
      });
  }

  private async afterStep() {
    this.metering.accrue();
    await this.context.saveProgress();
    await this.metering.settle();
    await this.timing();
  }

  /** The step's timing event: the model's share and ours (what the bench splits). */
  private async timing(): Promise<void> {
    const step = this.current;
    if (!step) return;
    this.current = undefined;
    const totalMs = performance.now() - step.began;
    await this.context.event('debug', 'timing', `step ${this.context.steps} took ${Math.round(totalMs)} ms`, {
      step: this.context.steps,
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
