// One claimed run, driven to its end or until this replica lets it go: its
// browser (a browser-host session, reconnected when another replica drove it
// before), its metered hold (agent and browser seconds while it runs, a page
// per document, tokens at zero), and the loop of steps: observe the page, one
// structured model call, up to MAX_ACTIONS actions, events written as they
// happen. Paused time (a question, a person driving) is not metered.
import { setTimeout as sleep } from 'node:timers/promises';
import { create } from '@bufbuild/protobuf';
import {
  type LedgerClient,
  MeteredHold,
  type MeteredState,
  type MeterName,
  priceUsage,
  recoverMetered,
} from '@wap/billing';
import { isApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import { browser as proto } from '@wap/proto';
import { type BrowserHosts, openOnHosts } from '@wap/rpc';
import { unsealText } from '@wap/sealed';
import { z } from 'zod';
import type { BrowserDriver, RunFile } from '../browser/types.js';
import type { ModelRegistry } from '../clients/models.js';
import { unsealFile } from '../domain/files.js';
import type { ActionContext } from '../domain/rules/check.js';
import { hostOf } from '../domain/rules/domains.js';
import { CVC_PURPOSE, hostAllowed } from '../domain/secrets.js';
import { siteOf } from '../domain/site.js';
import {
  browserAction,
  describeAction,
  LOOP_FAIL,
  LOOP_NUDGE,
  type Memory,
  parseStep,
  readMemory,
  repeats,
  type StepAction,
  SYSTEM_PROMPT,
  stepMessage,
  stepShape,
} from '../domain/step.js';
import { looseAnswer } from '../domain/strict-schema.js';
import { type JsonSchema, ModelError } from '../model/types.js';
import { ClaimLost, type Fenced, type Outcome, type Reason } from '../store/fenced.js';
import { type PauseStore, readApproval } from '../store/pauses.js';
import type { RunRow, RunStore } from '../store/runs.js';
import { fractionDigits, major, PARTS, type PolicyDeps, partOf, RunPolicy } from './run-policy.js';

/** Steps in a row that achieve nothing before the run fails. */
export const FAILURE_BUDGET = 5;
/** A session waits this long for the run's next replica after one stops (killed, redeployed). */
const SESSION_IDLE_SECONDS = 300;
/** The longest a run's browser lives (the browser host's bound). */
const SESSION_LIFETIME_SECONDS = 6 * 3_600;
/** A run waiting for a browser slot is tried again this often. */
const SLOT_RETRY_MS = 5_000;
/** Credits held ahead of use at most: the run's spend cap bounds it too. */
const AHEAD_MC = 10_000n;

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

/** Two URLs of one document (a fragment apart): navigating from one to the other reloads nothing useful. */
function sameDocument(a: string, b: string): boolean {
  try {
    const [x, y] = [new URL(a), new URL(b)];
    x.hash = '';
    y.hash = '';
    return x.href === y.href;
  } catch {
    return false;
  }
}

/** Characters of a tool's answer the model reads. */
const MAX_TOOL_RESULT_CHARS = 8_000;

/** A tool's answer as text: its text parts, and a word for each other part. */
function toolText(out: { content?: unknown; structuredContent?: unknown }): string {
  const parts = Array.isArray(out.content) ? (out.content as { type?: string; text?: string }[]) : [];
  const text = parts.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : `(${p.type ?? 'part'})`));
  if (text.length === 0 && out.structuredContent !== undefined) return JSON.stringify(out.structuredContent);
  return text.join('\n');
}

/** The run ended here (settled) or this replica let it go; either way the loop returns. */
class Stop extends Error {}

const sum = (a: Partial<Record<MeterName, string>>, b: Partial<Record<MeterName, string>>) => {
  const out: Partial<Record<MeterName, string>> = { ...a };
  for (const [m, q] of Object.entries(b) as [MeterName, string][]) out[m] = String(BigInt(out[m] ?? '0') + BigInt(q));
  return out;
};

export class RunLoop {
  private readonly fenced: Fenced;
  private latest: RunRow;
  private hold: MeteredHold | undefined;
  private driver: (BrowserDriver & { endSession(): Promise<void> }) | undefined;
  /** Quantities and millicredits billed by earlier claims, and this claim's hold on top. */
  private base: { billed: Partial<Record<MeterName, string>>; chargedMc: bigint };
  private unsettled = new Map<MeterName, bigint>();
  private state: MeteredState | undefined;
  /** Agent time: metered only while running. */
  private runningSince: number | undefined;
  private carryMs = 0;
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
  /** Aborts the model call in flight when the run is taken over or cancelled. */
  private stepAbort = new AbortController();
  private renewal: NodeJS.Timeout | undefined;
  private memory: Memory;
  private plan: string[];
  private steps: number;
  private inputTokens: bigint;
  private outputTokens: bigint;
  /** The page the model saw last. */
  private pageUrl = '';
  /** The host of the page the run is on: where a person who takes over may drive. */
  private site: string | null;
  /** What the run may use and the rules it is held to, read at its start. */
  private policy = RunPolicy.none();
  /** The CVC an approved card purchase brought, until its fill: this process only. */
  private cvc: string | undefined;

  constructor(
    private readonly deps: LoopDeps,
    row: RunRow,
    private readonly signal: AbortSignal,
  ) {
    this.fenced = deps.store.fenced(row.id, deps.replica);
    this.latest = row;
    this.base = { billed: (row.billed ?? {}) as Partial<Record<MeterName, string>>, chargedMc: row.chargedMc };
    this.memory = readMemory(row.memory);
    this.plan = Array.isArray(row.plan) ? (row.plan as unknown[]).map(String) : [];
    this.steps = row.steps;
    this.inputTokens = row.inputTokens;
    this.outputTokens = row.outputTokens;
    this.site = row.site;
  }

  private get log() {
    return this.deps.log.child({ runId: this.latest.id });
  }

  /** Drives the run; resolves when it settled or was let go. Never throws. */
  async run(): Promise<void> {
    this.renewal = setInterval(() => void this.renew().catch(() => undefined), this.deps.leaseMs / 3);
    this.signal.addEventListener('abort', () => this.stepAbort.abort(), { once: true });
    try {
      await this.drive();
    } catch (err) {
      if (err instanceof ClaimLost) this.log.warn('the run was taken by another replica; this one stops');
      else if (!(err instanceof Stop)) {
        this.log.error({ err }, 'run loop failed');
        await this.end('failed', { code: 'internal', message: 'The run stopped on an internal error.' }).catch(
          () => undefined,
        );
      }
    } finally {
      clearInterval(this.renewal);
      // Let go without ending: the session waits for the next replica (SESSION_IDLE_SECONDS).
      if (this.latest.status !== 'settled') {
        await this.hold?.settle().catch(() => undefined);
        await this.driver?.close().catch(() => undefined);
        await this.fenced.release().catch(() => undefined);
      }
    }
  }

  /** Looks at the row: renews the claim and stops the step in flight when a person or a cancel wants the run. */
  private async renew(): Promise<RunRow> {
    this.latest = await this.fenced.renew(this.deps.leaseMs);
    const taken = this.latest.status === 'paused' && this.latest.pausedFor === 'control';
    if (this.latest.cancelRequested || taken) this.stepAbort.abort();
    return this.latest;
  }

  /** Asked by a wake message: look now. */
  poke(): void {
    void this.renew().catch(() => undefined);
  }

  private async drive(): Promise<void> {
    const row = this.latest;
    await this.recoverEarlierClaim(row);
    if (row.cancelRequested) return this.end('cancelled', { code: 'cancelled', message: 'Cancelled by the caller.' });
    const model = this.deps.models.get(row.model);
    if (!model)
      return this.end('failed', { code: 'capability_unavailable', message: `The model ${row.model} is not served.` });
    await this.untilReady(model);
    if (this.deps.policy) this.policy = await RunPolicy.load(this.deps.policy, row);
    await this.openHold(row);
    const fresh = !row.sessionId;
    const opened = await this.openSession(row);
    if (!opened) return;
    this.driver = await this.deps.openDriver(opened.webSocketUrl);
    if (fresh) {
      await this.fenced.started(opened.sessionId);
      await this.event('summary', 'status', 'running', { status: 'running', sessionId: opened.sessionId });
      // An integration gone or changed since the submit is told once, at the start.
      for (const note of this.policy.notes) {
        await this.event('summary', 'integration', `${note.code}: ${note.message}`, note);
        this.memory.results.push(`integration unavailable (${note.code}): ${JSON.stringify(note.details)}`);
      }
    } else await this.event('step', 'resumed', 'resumed by another replica', { attempt: row.attempt });
    this.resumeClock();
    if (fresh && row.startUrl) {
      const outcome = await this.driver.act(
        { action: 'navigate', url: row.startUrl },
        () => Promise.resolve(undefined),
        { detectChange: false },
      );
      // Said only when it failed: "navigate" among the last actions invites a small model to repeat it.
      if (!outcome.ok) this.memory.results.push(`The start page could not be opened: ${outcome.message}`);
      await this.countPages();
    }
    const shape = stepShape({
      ...(row.outputSchema ? { outputSchema: row.outputSchema as Record<string, unknown> } : {}),
      ...this.policy.stepGrants(true),
    });
    for (;;) {
      await this.checkpoint();
      if (this.steps >= row.maxSteps)
        return this.end('failed', { code: 'max_steps', message: `The step cap (${row.maxSteps}) was reached.` });
      if (this.overCap(row.maxCredits))
        return this.end('failed', {
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
      if (!said) await this.event('summary', 'waiting', state.why, { for: 'model' });
      said = true;
      const row = await this.renew();
      if (row.cancelRequested) return this.end('cancelled', { code: 'cancelled', message: 'Cancelled by the caller.' });
      await sleep(2_000, undefined, { signal: this.signal }).catch(() => undefined);
      if (this.signal.aborted) throw new Stop();
    }
  }

  /** A claim before this one died mid-run: finish its bill exactly once from its journal. */
  private async recoverEarlierClaim(row: RunRow): Promise<void> {
    const state = row.metering as MeteredState | null;
    if (!state?.holdId) return;
    const pending = state.pending?.meters ?? {};
    const used = sum(state.settled, pending);
    const charged = await recoverMetered(
      this.deps.ledger,
      {
        workspaceId: row.workspaceId,
        operationId: `${row.id}:${row.attempt - 1}`,
        capability: 'agent',
        reference: row.id,
      },
      state,
      (Object.entries(used) as [MeterName, string][]).map(([meter, q]) => ({ meter, quantity: BigInt(q) })),
    );
    this.base = {
      billed: sum(this.base.billed, pending),
      chargedMc: this.base.chargedMc - BigInt(state.chargedMc) + charged,
    };
    await this.fenced.metered(null, this.base.billed, this.base.chargedMc);
  }

  private async openHold(row: RunRow): Promise<void> {
    const cap = BigInt(row.maxCredits) * 1_000n;
    try {
      this.hold = await MeteredHold.open(
        this.deps.ledger,
        {
          workspaceId: row.workspaceId,
          operationId: `${row.id}:${row.attempt}`,
          capability: 'agent',
          reference: row.id,
        },
        {
          aheadMc: cap < AHEAD_MC ? cap : AHEAD_MC,
          ttlSeconds: SESSION_LIFETIME_SECONDS + 3_600,
          onExhausted: () => this.stepAbort.abort(),
          journal: async (state) => {
            this.state = state;
            await this.fenced.metered(
              state,
              sum(this.base.billed, state.settled),
              this.base.chargedMc + BigInt(state.chargedMc),
            );
          },
        },
      );
    } catch (err) {
      this.log.warn({ err }, 'the run cannot be held on the ledger');
      if (isApiError(err)) await this.end('failed', { code: err.code, message: err.message });
      throw err;
    }
  }

  /** The run's browser: a new session, or the one an earlier replica drove. Undefined when it cannot have one (ended here). */
  private async openSession(row: RunRow) {
    try {
      return await openOnHosts(this.deps.hosts, {
        workspaceId: row.workspaceId,
        // Its hold (proxy bytes) is keyed apart from the run's own.
        requestId: `${row.id}:${row.attempt}:session`,
        sessionId: row.sessionId ?? '',
        options: create(proto.SessionOptionsSchema, {
          idleTimeoutSeconds: SESSION_IDLE_SECONDS,
          maxLifetimeSeconds: SESSION_LIFETIME_SECONDS,
          profileId: row.profileId ?? '',
        }),
        task: create(proto.SessionTaskSchema, { kind: 'agent', runId: row.id }),
      });
    } catch (err) {
      if (isApiError(err) && err.code === 'concurrency_limit') {
        // Every browser of the plan is busy: the run waits in the queue for one, holding nothing, said once.
        await this.hold?.close().catch(() => undefined);
        this.hold = undefined;
        await this.fenced.metered(null, this.base.billed, this.base.chargedMc);
        if (this.memory.waiting !== 'browser') {
          this.memory.waiting = 'browser';
          await this.fenced.stepped(this.progress());
          await this.event('summary', 'waiting', "waiting for a browser slot: the plan's browsers are all in use", {
            for: 'browser',
          });
        }
        await this.fenced.postpone(SLOT_RETRY_MS);
        throw new Stop();
      }
      if (isApiError(err) && err.code === 'not_found' && row.sessionId) {
        await this.end('failed', { code: 'page_lost', message: "The run's browser ended while no replica drove it." });
        return undefined;
      }
      this.log.warn({ err }, 'the run cannot have its browser');
      if (isApiError(err)) {
        await this.end('failed', { code: err.code, message: err.message });
        return undefined;
      }
      throw err;
    }
  }

  /** Between steps and actions: a cancel ends the run; a pause waits (unmetered) until it is completed. */
  private async checkpoint(): Promise<void> {
    let row = await this.renew();
    if (row.cancelRequested) return this.end('cancelled', { code: 'cancelled', message: 'Cancelled by the caller.' });
    if (row.status === 'paused') {
      this.pauseClock();
      while (row.status === 'paused' && !row.cancelRequested) {
        if (this.signal.aborted) throw new Stop();
        if (row.pausedFor === 'approval' && this.approvalLapsed())
          return this.end('failed', {
            code: 'approval_timed_out',
            message: `No one approved or denied within ${Math.round(this.deps.approvalTimeoutMs / 1000)} s.`,
          });
        await sleep(250, undefined, { signal: this.signal }).catch(() => undefined);
        row = await this.renew();
      }
      if (row.cancelRequested) return this.end('cancelled', { code: 'cancelled', message: 'Cancelled by the caller.' });
      this.resumeClock();
    }
    if (this.signal.aborted) throw new Stop();
    if (this.stepAbort.signal.aborted) this.stepAbort = new AbortController();
    if (row.pausedFor || row.reply) await this.resumed(row);
  }

  /** The one place a completed pause is read: a person's hand back, an answer, or a decision. */
  private async resumed(row: RunRow): Promise<void> {
    if (row.pausedFor === 'control') {
      if (row.sessionId)
        await this.deps
          .releaseControl(row.sessionId)
          .catch((err) => this.log.warn({ err }, "the host's control guard was not released; it lapses"));
      // Pages a person opened are theirs: not billed to the run.
      this.driver?.takeNavigations();
      this.memory.results = ['A person drove the browser meanwhile: look at the page afresh.'];
    }
    // A reply is an approval's decision when the run asked one, else the answer to its question.
    if (row.reply && this.awaitingApproval()) await this.approved(row.reply, row.id);
    else if (row.reply)
      this.memory.reply = { question: this.memory.reply?.question ?? row.question ?? '', answer: row.reply };
    await this.deps.pauses.taken(row.id, this.deps.replica);
  }

  private async step(
    row: RunRow,
    model: NonNullable<ReturnType<ModelRegistry['get']>>,
    shape: ReturnType<typeof stepShape>,
  ) {
    const driver = this.driver as BrowserDriver;
    const began = performance.now();
    const page = await driver.observe({ screenshot: model.vision });
    const observeMs = performance.now() - began;
    this.pageUrl = page.url;
    const site = siteOf(page.url) ?? this.site;
    // Kept as it changes, so a take-over at any moment links to the site the run is on.
    if (site !== this.site) await this.fenced.site(site);
    this.site = site;
    const files = await this.deps.store.files(row.id);
    // Every secret value out of what the model reads: the page's text may show one.
    const text = this.policy.scrub(
      stepMessage({
        task: row.task,
        step: this.steps + 1,
        maxSteps: row.maxSteps,
        plan: this.plan,
        memory: this.memory,
        files,
        grants: this.policy.describe(),
        page,
      }),
    );
    // The reply and the notes are said once.
    this.memory.reply = undefined;
    this.memory.nudge = undefined;
    this.memory.extracted = undefined;
    let result: Awaited<ReturnType<typeof model.step>>;
    const modelStarted = performance.now();
    try {
      result = await model.step({
        system: SYSTEM_PROMPT,
        messages: [{ role: 'user', text, ...(page.screenshot && { images: [page.screenshot] }) }],
        schema: shape.schema,
        schemaName: shape.name,
        signal: AbortSignal.any([this.stepAbort.signal, this.signal]),
      });
    } catch (err) {
      if (this.stepAbort.signal.aborted || this.signal.aborted) return; // taken over, cancelled or stopping: the checkpoint decides
      return this.modelFailed(err);
    }
    const modelMs = performance.now() - modelStarted;
    this.current = { began, modelMs, observeMs, actMs: 0, usage: result.usage };
    this.inputTokens += BigInt(result.usage.inputTokens);
    this.outputTokens += BigInt(result.usage.outputTokens);
    this.add('tokens', BigInt(result.usage.inputTokens + result.usage.outputTokens));
    const parsed = parseStep(result.output);
    this.steps++;
    if ('error' in parsed) {
      this.memory.nudge = `Your last answer could not be used (${parsed.error}). Answer with the JSON object asked for.`;
      await this.event('step', 'dead_end', `step ${this.steps}: the model's answer could not be used`, {
        error: parsed.error,
      });
      await this.failed(true);
      return this.afterStep();
    }
    const { step } = parsed;
    this.memory.memory = step.memory;
    if (step.plan.length > 0 && JSON.stringify(step.plan) !== JSON.stringify(this.plan)) {
      this.plan = step.plan;
      await this.event('summary', 'plan', 'plan stated', { plan: step.plan });
    }
    await this.event('step', 'step', `step ${this.steps}: ${step.actions.map(describeAction).join(', ')}`, {
      step: this.steps,
      evaluation: step.evaluation,
      actions: step.actions.map(describeAction),
    });
    const results: string[] = [];
    let achieved = false;
    for (const [i, action] of step.actions.entries()) {
      const key = `${page.fingerprint}|${describeAction(action)}`;
      const times = repeats(this.memory.recent, key) + 1;
      this.memory.recent = [...this.memory.recent, key].slice(-20);
      if (times >= LOOP_FAIL)
        return this.end('failed', {
          code: 'loop_detected',
          message: `The same action (${describeAction(action)}) was repeated ${times} times on the same page.`,
        });
      if (times >= LOOP_NUDGE) {
        this.memory.nudge = `You did "${describeAction(action)}" ${times} times on the same page without effect. Do something else.`;
        await this.event('step', 'dead_end', `loop: ${describeAction(action)} repeated ${times} times`, { times });
      }
      const done = await this.perform(row, action, results, i < step.actions.length - 1, page.url);
      if (done === 'stop') return this.afterStep();
      if (done === 'ok') achieved = true;
      if (done === 'changed') {
        achieved = true;
        break;
      }
      if (this.stepAbort.signal.aborted) break;
    }
    this.memory.results = results;
    await this.failed(!achieved);
    await this.afterStep();
  }

  /**
   * Runs one action: 'changed' when the page changed (the step's later actions are skipped), 'stop'
   * when the run paused or ended. Whether the page changed is looked for only when `more` actions follow.
   */
  private async perform(
    row: RunRow,
    action: StepAction,
    results: string[],
    more: boolean,
    pageUrl: string,
  ): Promise<'ok' | 'failed' | 'changed' | 'stop'> {
    const driver = this.driver as BrowserDriver;
    const gated = await this.gate(action, pageUrl, results);
    if (gated) return gated;
    switch (action.action) {
      case 'fill_secret':
        return this.fillSecret(row, action, results, pageUrl);
      case 'purchase':
        return this.purchase(action, results, pageUrl);
      case 'call_tool':
        return this.callTool(row, action, results);
      case 'record': {
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
        if (await this.reveals(action.json, 'record', results)) return 'failed';
        const seq = await this.fenced.record(data);
        await this.event('step', 'record', `record ${seq} appended`, { seq: Number(seq) });
        results.push(`record: saved as #${seq}`);
        return 'ok';
      }
      case 'ask': {
        this.pauseClock();
        this.memory.reply = { question: action.question, answer: '' };
        await this.fenced.stepped(this.progress());
        await this.deps.pauses.open(row.id, this.deps.replica, 'question', action.question);
        await this.event('summary', 'question', action.question, { question: action.question });
        await this.event('summary', 'status', 'paused: a question for the caller', {
          status: 'paused',
          pausedFor: 'question',
        });
        results.push(`ask: asked ${JSON.stringify(action.question.slice(0, 80))}`);
        this.memory.results = results;
        return 'stop';
      }
      case 'finish':
        return this.finish(row, action, results);
      default: {
        const act = browserAction(action);
        if (!act) return 'failed';
        if (act.action === 'navigate' && sameDocument(act.url, this.pageUrl)) {
          results.push(`${describeAction(action)}: not done, the browser is on that page already; act on its elements`);
          return 'failed';
        }
        const acting = performance.now();
        const moved = act.action === 'navigate' || act.action === 'go_back' || act.action === 'switch_tab';
        const outcome = await driver.act(act, (handle) => this.file(row.id, handle), { detectChange: more && !moved });
        if (this.current) this.current.actMs += performance.now() - acting;
        results.push(`${describeAction(action)}: ${outcome.message}`.slice(0, 500));
        if (outcome.extracted) {
          const extracted = this.policy.scrub(outcome.extracted);
          if (extracted !== outcome.extracted)
            await this.event('step', 'dead_end', 'a secret value in the extracted text was taken out', {
              code: 'secret_in_answer',
            });
          outcome.extracted = extracted;
          this.memory.extracted = outcome.extracted;
          await this.event('step', 'finding', `extracted ${outcome.extracted.length} characters`, {
            query: action.action === 'extract' ? action.query : undefined,
            excerpt: outcome.extracted.slice(0, 500),
          });
        }
        await this.event('debug', 'action', `${describeAction(action)}: ${outcome.ok ? 'ok' : 'failed'}`, {
          ok: outcome.ok,
          message: outcome.message.slice(0, 300),
        });
        await this.countPages();
        if (!outcome.ok) return 'failed';
        // A navigation ends the step whatever it changed: what the model saw is of the page before.
        return outcome.pageChanged || moved ? 'changed' : 'ok';
      }
    }
  }

  private async finish(row: RunRow, action: Extract<StepAction, { action: 'finish' }>, results: string[]) {
    let answer = action.answer;
    if (row.outputSchema && action.success) {
      if (typeof answer === 'string') {
        try {
          answer = JSON.parse(answer);
        } catch {
          // checked below as it is
        }
      }
      answer = looseAnswer(row.outputSchema as JsonSchema, answer);
      const checked = z.fromJSONSchema(row.outputSchema as never).safeParse(answer);
      if (!checked.success) {
        const issue = checked.error.issues[0];
        this.memory.nudge = `Your answer does not fit the output schema (${issue?.path.join('.') || 'answer'}: ${issue?.message}). Finish again with an answer that fits.`;
        results.push('finish: refused, the answer does not fit the output schema');
        await this.event('step', 'dead_end', 'the answer does not fit the output schema', { issue: issue?.message });
        return 'failed' as const;
      }
    }
    if (await this.reveals(JSON.stringify(answer ?? null), 'finish', results)) return 'failed' as const;
    this.memory.results = results;
    await this.fenced.stepped(this.progress());
    if (action.success) await this.end('completed', null, answer);
    else
      await this.end(
        'failed',
        {
          code: 'task_failed',
          message: typeof answer === 'string' ? answer.slice(0, 500) : 'The agent could not do the task.',
        },
        answer,
      );
    return 'stop' as const;
  }

  /** What the action is to the workspace's gates: its kind and the URL it acts on. */
  private async contextOf(action: StepAction, pageUrl: string): Promise<ActionContext | undefined> {
    const driver = this.driver as BrowserDriver;
    const base = { url: pageUrl, step: this.steps, runSpentCredits: Number(this.spentMc()) / 1_000 };
    switch (action.action) {
      case 'navigate':
        return { ...base, kind: 'navigate', url: action.url };
      case 'click':
        return {
          ...base,
          kind: this.policy.gatesSubmits && (await driver.formRole(action.index)) === 'submit' ? 'submit' : 'click',
        };
      case 'type':
        return {
          ...base,
          kind:
            action.submit && this.policy.gatesSubmits && (await driver.formRole(action.index)) !== null
              ? 'submit'
              : 'type',
        };
      case 'select':
      case 'press':
      case 'scroll':
      case 'extract':
      case 'go_back':
      case 'switch_tab':
        return { ...base, kind: action.action };
      case 'attach_file':
        return { ...base, kind: 'upload' };
      case 'fill_secret':
        return {
          ...base,
          kind: 'fill_secret',
          handle: action.handle,
          secretDomains: this.policy.secretDomains(action.handle) ?? [],
        };
      case 'purchase':
        return {
          ...base,
          kind: 'purchase',
          purchase: { merchant: action.merchant, amount: action.amount, currency: action.currency.toUpperCase() },
          runPurchases: this.memory.spent
            ? [
                {
                  amount: this.memory.spent / 10 ** fractionDigits(action.currency.toUpperCase()),
                  currency: action.currency.toUpperCase(),
                },
              ]
            : [],
        };
      default:
        // record, ask, finish, call_tool: the run's own, not the browser's.
        return undefined;
    }
  }

  /**
   * The workspace's gates on an action: undefined lets it run; a refusal is told to the model and
   * named in the events; a rule that asks approval pauses the run for a person.
   */
  private async gate(action: StepAction, pageUrl: string, results: string[]) {
    const context = await this.contextOf(action, pageUrl);
    if (!context) return undefined;
    const key = describeAction(action);
    const approved = this.memory.approval?.state === 'approved' && this.memory.approval.key === key;
    const verdict = this.policy.check({ ...context, approved });
    if (verdict.allowed) {
      if (approved) this.memory.approval = undefined;
      return undefined;
    }
    if (verdict.approval) {
      this.memory.approval = { key, rule: verdict.rule, state: 'asked', askedAt: Date.now() };
      results.push(
        `${key}: waits for a person's approval (rule ${JSON.stringify(verdict.rule)}); do it again once approved`,
      );
      this.memory.results = results;
      await this.askApproval(`Approve this action? ${key} on ${hostOf(pageUrl) ?? 'this page'}: ${verdict.why}`, {
        rule: verdict.rule,
        action: key,
      });
      return 'stop' as const;
    }
    results.push(`${key}: blocked by the workspace rule ${JSON.stringify(verdict.rule)}: ${verdict.why}`.slice(0, 500));
    await this.event('step', 'blocked', `${key} blocked by a rule: ${verdict.rule}`, {
      rule: verdict.rule,
      why: verdict.why,
      action: key,
    });
    return 'failed' as const;
  }

  /** Pauses the run until a person approves or denies (POST /v1/agent/{id}/answer with `approve`). */
  private async askApproval(question: string, data: Record<string, unknown>): Promise<void> {
    this.pauseClock();
    await this.fenced.stepped(this.progress());
    await this.deps.pauses.open(this.latest.id, this.deps.replica, 'approval', question);
    await this.event('summary', 'question', question, { question, approval: true, ...data });
    await this.event('summary', 'status', 'paused: waiting for an approval', {
      status: 'paused',
      pausedFor: 'approval',
    });
  }

  private awaitingApproval(): boolean {
    return this.memory.purchase?.state === 'asked' || this.memory.approval?.state === 'asked';
  }

  /** Whether what the run asked approval for has waited past its time. */
  private approvalLapsed(): boolean {
    const asked =
      this.memory.purchase?.state === 'asked'
        ? this.memory.purchase.askedAt
        : this.memory.approval?.state === 'asked'
          ? this.memory.approval.askedAt
          : undefined;
    return asked !== undefined && Date.now() - asked > this.deps.approvalTimeoutMs;
  }

  /** A person's decision: an approved purchase is a record of the run and its card may be filled; a denied one ends it. */
  private async approved(reply: string, runId: string): Promise<void> {
    const { approved: yes, sealedCvc: sealed } = readApproval(reply);
    // The CVC is opened here, kept in this process for the purchase's one fill, and never written back.
    this.cvc = undefined;
    if (sealed && this.deps.secretsKey) {
      try {
        this.cvc = unsealText(this.deps.secretsKey, CVC_PURPOSE, runId, sealed);
      } catch {
        this.log.warn('an approval brought a CVC that does not open');
      }
    }
    const purchase = this.memory.purchase;
    if (purchase?.state === 'asked') {
      if (!yes)
        return this.end('failed', {
          code: 'approval_denied',
          message: `The purchase of ${major(purchase.amount, purchase.currency)} at ${purchase.merchant} was denied.`,
        });
      this.memory.purchase = { ...purchase, state: 'approved' };
      this.memory.spent = (this.memory.spent ?? 0) + purchase.amount;
      await this.fenced.record({
        purchase: {
          merchant: purchase.merchant,
          host: purchase.host,
          item: purchase.item,
          amount: major(purchase.amount, purchase.currency),
          currency: purchase.currency,
          approvedAt: new Date().toISOString(),
        },
      });
      this.memory.results = [
        `purchase approved: fill the card (fill_secret) and complete it${this.cvc ? '; the approval brought the cvc (part cvc)' : ''}`,
      ];
      return;
    }
    const approval = this.memory.approval;
    if (approval?.state !== 'asked') return;
    this.memory.approval = yes ? { ...approval, state: 'approved' } : undefined;
    this.memory.results = [
      yes ? `${approval.key}: approved; do it now` : `${approval.key}: denied by a person; do not do it`,
    ];
  }

  /** Fills a part of a granted secret into a field: a single-use intent for this run, handle and host, redeemed at once. */
  private async fillSecret(
    row: RunRow,
    action: Extract<StepAction, { action: 'fill_secret' }>,
    results: string[],
    pageUrl: string,
  ): Promise<'ok' | 'failed'> {
    const key = describeAction(action);
    const refuse = async (code: string, message: string) => {
      results.push(`${key}: not filled: ${message}`.slice(0, 500));
      await this.event('step', 'dead_end', `${key}: ${code}`, { code, handle: action.handle });
      return 'failed' as const;
    };
    const kind = this.policy.kindOf(action.handle);
    if (kind && !PARTS[kind].includes(action.part))
      return refuse('bad_request', `${action.handle} is a ${kind}: its parts are ${PARTS[kind].join(', ')}`);
    if (kind === 'card' && this.memory.purchase?.state !== 'approved')
      return refuse(
        'no_open_purchase',
        'a card is filled only for an approved purchase: declare it with purchase first',
      );
    const intents = this.deps.policy?.intents;
    if (!hostOf(pageUrl) || !intents) return refuse('run_secret_undeliverable', 'this page takes no secrets');
    const driver = this.driver as BrowserDriver;
    // A field in a frame goes to that frame's site: every frame from the field's up to the page's
    // own must be on the secret's domains, not only the page the model sees.
    const frames = await driver.frameHosts(action.index);
    if (typeof frames === 'string') return refuse('run_secret_undeliverable', `[${action.index}] is ${frames}`);
    const foreign = this.policy.foreignFrame(action.handle, frames);
    if (foreign)
      return refuse(
        'run_secret_undeliverable',
        `[${action.index}] is in a frame of ${foreign}, which is not among ${action.handle}'s domains`,
      );
    // The page's own host is the intent's: outside the secret's domains, the intent is refused.
    const host = frames.at(-1) as string;
    let value: string | undefined;
    try {
      const intent = await intents.create({ runId: row.id, handle: action.handle, host });
      const secret = await intents.redeem(intent.id, { runId: row.id, handle: action.handle, host });
      value = action.part === 'cvc' ? this.cvc : partOf(secret, action.part);
    } catch (err) {
      if (!isApiError(err)) throw err;
      const why =
        err.code === 'secret_intent_invalid'
          ? `${action.handle} may not be filled on ${host}`
          : err.code === 'run_secret_undeliverable'
            ? `${action.handle} cannot be delivered (it was not granted, or was deleted)`
            : err.message;
      return refuse(err.code, why);
    }
    if (value === undefined)
      return refuse('run_secret_undeliverable', `${action.handle} has no ${action.part} to fill`);
    const outcome = await driver.fillSecret(action.index, value, frames);
    if (!outcome.ok) return refuse('run_secret_undeliverable', outcome.message);
    // A CVC serves one fill.
    if (action.part === 'cvc') this.cvc = undefined;
    results.push(`${key}: filled`);
    await this.event('step', 'secret', `filled ${action.part} of ${action.handle}`, {
      handle: action.handle,
      part: action.part,
      host,
    });
    return 'ok';
  }

  /**
   * A purchase the model declares before it fills a card: checked against the run's limits (a
   * breach ends the run with its code), then a person approves it while the run waits.
   */
  private async purchase(
    action: Extract<StepAction, { action: 'purchase' }>,
    results: string[],
    pageUrl: string,
  ): Promise<'failed' | 'stop'> {
    const limits = this.policy.grants.purchases;
    const currency = action.currency.toUpperCase();
    if (!limits) {
      results.push('purchase: this run may not buy anything');
      return 'failed';
    }
    if (currency !== limits.currency) {
      results.push(`purchase: amounts are in ${limits.currency} only`);
      return 'failed';
    }
    const amount = Math.round(action.amount * 10 ** fractionDigits(currency));
    const host = hostOf(pageUrl) ?? '';
    const merchant = action.merchant.slice(0, 200);
    if (limits.merchants.length > 0 && !hostAllowed(host, limits.merchants))
      return this.end('failed', {
        code: 'merchant_not_allowed',
        message: `The purchase on ${host || 'this page'} is not among the run's merchants (${limits.merchants.join(', ')}).`,
      });
    if (limits.perPurchaseLimit !== null && amount > limits.perPurchaseLimit)
      return this.end('failed', {
        code: 'per_purchase_exceeded',
        message: `The purchase of ${major(amount, currency)} is over the limit of ${major(limits.perPurchaseLimit, currency)} a purchase.`,
      });
    const spent = this.memory.spent ?? 0;
    if (spent + amount > limits.spendCap)
      return this.end('failed', {
        code: 'spend_cap_exceeded',
        message: `The purchase of ${major(amount, currency)} would take the run past its spend cap of ${major(limits.spendCap, currency)} (${major(spent, currency)} spent).`,
      });
    this.memory.purchase = { merchant, host, amount, currency, item: action.item, state: 'asked', askedAt: Date.now() };
    results.push(`purchase: waiting for a person to approve ${major(amount, currency)} at ${merchant}`);
    this.memory.results = results;
    await this.askApproval(
      `Approve the purchase of ${action.item.slice(0, 200) || 'this order'} for ${major(amount, currency)} at ${merchant} (${host})?`,
      { purchase: { merchant, host, amount: major(amount, currency), item: action.item.slice(0, 300) } },
    );
    return 'stop';
  }

  /** Calls a tool of a granted integration; its result, bounded and without secret values, is the model's to read. */
  private async callTool(
    row: RunRow,
    action: Extract<StepAction, { action: 'call_tool' }>,
    results: string[],
  ): Promise<'ok' | 'failed'> {
    const key = describeAction(action);
    const tool = this.policy.tool(action.tool);
    if (!tool) {
      results.push(`${key}: no such tool; the tools are ${this.policy.tools.map((t) => t.name).join(', ') || 'none'}`);
      return 'failed';
    }
    let args: unknown;
    try {
      args = JSON.parse(action.arguments || '{}');
    } catch {
      args = undefined;
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      results.push(`${key}: arguments must be a JSON object`);
      return 'failed';
    }
    if (await this.reveals(action.arguments, 'call_tool', results)) return 'failed';
    const integrations = this.deps.policy?.integrations;
    if (!integrations) return 'failed';
    try {
      const out = await integrations.callTool(
        row.workspaceId,
        row.id,
        tool.integrationId,
        tool.tool.name,
        args as Record<string, unknown>,
      );
      const text = this.policy.scrub(toolText(out)).slice(0, MAX_TOOL_RESULT_CHARS);
      this.memory.extracted = `${tool.name} answered${out.isError ? ' an error' : ''}:\n${text}`;
      results.push(`${key}: ${out.isError ? 'the tool answered an error' : 'answered'}`);
      await this.event('step', 'tool', `${tool.name} called`, { tool: tool.name, error: out.isError === true });
      return out.isError ? 'failed' : 'ok';
    } catch (err) {
      if (!isApiError(err)) {
        results.push(`${key}: the server did not answer`);
        await this.event('step', 'dead_end', `${tool.name} failed: the server did not answer`, { tool: tool.name });
        return 'failed';
      }
      const gone = err.code === 'integration_changed';
      results.push(`${key}: ${gone ? 'the integration is gone: it was disconnected' : err.message}`.slice(0, 500));
      await this.event(gone ? 'summary' : 'step', gone ? 'integration' : 'dead_end', `${tool.name}: ${err.code}`, {
        code: err.code,
        details: err.details ?? null,
      });
      return 'failed';
    }
  }

  /** Whether `text` shows a secret value: then it does not leave (secret_in_answer), and the model is told. */
  private async reveals(text: string, what: string, results: string[]): Promise<boolean> {
    const handle = this.policy.revealed(text);
    if (!handle) return false;
    results.push(`${what}: refused, it would show the value of the secret ${handle}; leave secret values out`);
    this.memory.nudge = `Never put a secret's value (${handle}) into a ${what}.`;
    await this.event('step', 'dead_end', `${what} withheld: it would show a secret's value`, {
      code: 'secret_in_answer',
      handle,
    });
    return true;
  }

  private async file(runId: string, handle: string): Promise<RunFile | undefined> {
    if (!this.deps.filesKey) return undefined;
    const row = await this.deps.store.file(runId, handle);
    if (!row) return undefined;
    return { handle, name: row.name, mimeType: row.mimeType, bytes: unsealFile(this.deps.filesKey, runId, row.sealed) };
  }

  private async modelFailed(err: unknown): Promise<void> {
    const e = err instanceof ModelError ? err : new ModelError(String((err as Error)?.message ?? err), 'unavailable');
    await this.event('step', 'dead_end', `the model call failed: ${e.message.slice(0, 200)}`, { kind: e.kind });
    if (!e.retryable && e.kind !== 'bad_output')
      return this.end('failed', {
        code: 'model_error',
        message: `The model could not be used: ${e.message.slice(0, 200)}`,
      });
    if (e.kind === 'bad_output') this.memory.nudge = 'Your last answer was not the JSON object asked for.';
    await this.failed(true);
    if (e.retryable) await sleep(2_000, undefined, { signal: this.signal }).catch(() => undefined);
  }

  /** Counts a step that achieved nothing; the run fails past the budget. */
  private async failed(nothing: boolean): Promise<void> {
    this.memory.failures = nothing ? this.memory.failures + 1 : 0;
    if (this.memory.failures >= FAILURE_BUDGET)
      await this.end('failed', {
        code: 'too_many_failures',
        message: `${FAILURE_BUDGET} steps in a row achieved nothing.`,
      });
  }

  private progress() {
    return {
      steps: this.steps,
      plan: this.plan,
      memory: this.memory,
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      site: this.site,
    };
  }

  private async afterStep() {
    this.accrueTime();
    await this.fenced.stepped(this.progress());
    await this.hold?.settle().catch((err) => this.log.warn({ err }, 'run settle failed; the next one retries'));
    await this.timing();
  }

  /** The step's timing event: the model's share and ours (what the bench splits). */
  private async timing(): Promise<void> {
    const step = this.current;
    if (!step) return;
    this.current = undefined;
    const totalMs = performance.now() - step.began;
    await this.event('debug', 'timing', `step ${this.steps} took ${Math.round(totalMs)} ms`, {
      step: this.steps,
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

  /** Each document the run's tabs committed is a page load. */
  private async countPages(): Promise<void> {
    for (const url of this.driver?.takeNavigations() ?? []) {
      this.add('page_load', 1n);
      await this.event('debug', 'page', `page ${url.slice(0, 200)}`, { url: url.slice(0, 2_048) });
    }
  }

  private add(meter: MeterName, quantity: bigint): void {
    if (quantity <= 0n) return;
    this.hold?.add(meter, quantity);
    this.unsettled.set(meter, (this.unsettled.get(meter) ?? 0n) + quantity);
  }

  /** Credits the run has used (earlier claims, this one settled and not yet settled). */
  private spentMc(): bigint {
    const all = sum(this.base.billed, this.state?.settled ?? {});
    for (const [m, q] of this.unsettled) all[m] = String(BigInt(all[m] ?? '0') + q);
    for (const [m, q] of Object.entries(this.state?.settled ?? {}) as [MeterName, string][]) {
      // `unsettled` counts everything added this claim; the settled part is already in `all`.
      all[m] = String(BigInt(all[m] ?? '0') - BigInt(q));
    }
    return priceUsage(
      (Object.entries(all) as [MeterName, string][]).map(([meter, q]) => ({ meter, quantity: BigInt(q) })),
    ).millicredits;
  }

  /** Another step would pass the cap: what a step costs on average so far, or a page and half a minute at the start. */
  private overCap(maxCredits: number): boolean {
    this.accrueTime();
    const spent = this.spentMc();
    const perStep = this.steps > 0 ? spent / BigInt(this.steps) : 1_000n + 3_000n;
    return spent + perStep > BigInt(maxCredits) * 1_000n;
  }

  private resumeClock(): void {
    this.runningSince ??= Date.now();
  }

  private pauseClock(): void {
    this.accrueTime();
    this.runningSince = undefined;
  }

  /** Adds the running time since the last look, in whole seconds, to agent and browser time. */
  private accrueTime(final = false): void {
    if (this.runningSince === undefined) return;
    const now = Date.now();
    this.carryMs += now - this.runningSince;
    this.runningSince = now;
    const seconds = final ? Math.ceil(this.carryMs / 1_000) : Math.floor(this.carryMs / 1_000);
    this.carryMs = Math.max(0, this.carryMs - seconds * 1_000);
    this.add('agent_seconds', BigInt(seconds));
    this.add('context_seconds', BigInt(seconds));
  }

  /** Appends an event; no secret value leaves in one. */
  private async event(level: 'summary' | 'step' | 'debug', kind: string, message: string, data?: unknown) {
    const json = data === undefined ? undefined : JSON.stringify(data);
    const scrubbed = json === undefined ? undefined : this.policy.scrub(json);
    await this.fenced.event({
      level,
      kind,
      message: this.policy.scrub(message),
      data: scrubbed === json ? data : JSON.parse(scrubbed as string),
    });
  }

  /** Settles the run: the last of its bill, its files destroyed, its browser closed. Throws Stop. */
  private async end(outcome: Outcome, reason: Reason | null, answer?: unknown): Promise<never> {
    this.accrueTime(true);
    this.runningSince = undefined;
    if (this.hold) {
      await this.hold.close().catch((err) => this.log.warn({ err }, 'run hold not closed; it lapses'));
      const state = this.hold.state();
      this.base = {
        billed: sum(this.base.billed, state.settled),
        chargedMc: this.base.chargedMc + this.hold.charged,
      };
      this.hold = undefined;
      await this.fenced.metered(null, this.base.billed, this.base.chargedMc);
    }
    await this.fenced.stepped(this.progress());
    await this.timing();
    await this.fenced.settle(outcome, reason, answer);
    this.latest = { ...this.latest, status: 'settled' };
    await this.driver?.endSession().catch((err) => this.log.warn({ err }, 'run session not closed; it idles out'));
    this.log.info({ outcome, reason: reason?.code }, 'run settled');
    throw new Stop();
  }
}
