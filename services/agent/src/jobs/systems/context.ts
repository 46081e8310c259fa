// What every system of one run shares (docs/decisions/0019-agent-run-systems.md):
// the row as claimed and as last read, the writes under the claim, the state
// the loop carries from step to step, the run's events (no secret value in
// one), and its ending, to which each system adds its last words. The RunLoop
// builds one per claimed run and hands it to each system; a system keeps its
// own part of the run's state itself.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@wap/log';
import { type Memory, readMemory } from '../../domain/memory.js';
import type { Fenced, Outcome, Reason } from '../../store/fenced.js';
import type { RunRow } from '../../store/runs.js';
import { RunPolicy } from '../run-policy.js';

/** The longest a run's browser lives (the browser host's bound), and so the run's hold. */
export const SESSION_LIFETIME_SECONDS = 6 * 3_600;

/** The run ended here (settled) or this replica let it go; either way the loop returns. */
export class Stop extends Error {}

export class RunContext {
  readonly log: Logger;
  /** The row as the loop read it last (each renewal): a cancel, a pause, a completion. */
  latest: RunRow;
  /** What the run may use and the rules it is held to, read at its start. */
  policy = RunPolicy.none();
  memory: Memory;
  plan: string[];
  steps: number;
  inputTokens: bigint;
  outputTokens: bigint;
  /** The host of the page the run is on: where a person who takes over may drive. */
  site: string | null;
  /** Aborts the model call in flight when the run is taken over or cancelled. */
  stepAbort = new AbortController();
  /** The replica stopping: the run is let go, not ended. */
  readonly signal: AbortSignal;
  private readonly leaseMs: number;
  private readonly closing: (() => Promise<void>)[] = [];
  private readonly closed: (() => Promise<void>)[] = [];

  constructor(
    /** The row as it was claimed: the run's task and settings. */
    readonly row: RunRow,
    /** The run's writes under this replica's claim. */
    readonly fenced: Fenced,
    options: { leaseMs: number; log: Logger; signal: AbortSignal },
  ) {
    this.log = options.log.child({ runId: row.id });
    this.leaseMs = options.leaseMs;
    this.signal = options.signal;
    this.latest = row;
    this.memory = readMemory(row.memory);
    this.plan = Array.isArray(row.plan) ? (row.plan as unknown[]).map(String) : [];
    this.steps = row.steps;
    this.inputTokens = row.inputTokens;
    this.outputTokens = row.outputTokens;
    this.site = row.site;
  }

  /**
   * What a system does when the run ends, in the order the systems were built: `before` the row
   * is settled (the last of the bill, the step's timing), or `after` (the browser's session ends).
   */
  onEnd(when: 'before' | 'after', last: () => Promise<void>): void {
    (when === 'before' ? this.closing : this.closed).push(last);
  }

  /** Settles the run: the systems' last words, its progress, its outcome; its files go with it. Throws Stop. */
  async end(outcome: Outcome, reason: Reason | null, answer?: unknown): Promise<never> {
    for (const last of this.closing) await last();
    await this.saveProgress();
    await this.fenced.settle(outcome, reason, answer);
    this.latest = { ...this.latest, status: 'settled' };
    for (const last of this.closed) await last();
    this.log.info({ outcome, reason: reason?.code }, 'run settled');
    throw new Stop();
  }

  /** Looks at the row: renews the claim and stops the step in flight when a person or a cancel wants the run. */
  async renew(): Promise<RunRow> {
    this.latest = await this.fenced.renew(this.leaseMs);
    const taken = this.latest.status === 'paused' && this.latest.pausedFor === 'control';
    if (this.latest.cancelRequested || taken) this.stepAbort.abort();
    return this.latest;
  }

  /** Ends the run as its caller asked. */
  cancelled(): Promise<never> {
    return this.end('cancelled', { code: 'cancelled', message: 'Cancelled by the caller.' });
  }

  /** Waits `ms`, or less when the replica stops. */
  async idle(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.signal }).catch(() => undefined);
  }

  /** What the loop carries on, as the row keeps it. */
  progress() {
    return {
      steps: this.steps,
      plan: this.plan,
      memory: this.memory,
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      site: this.site,
    };
  }

  /** Writes what the loop carries on: after a step, before a pause or an ending. */
  saveProgress(): Promise<void> {
    return this.fenced.stepped(this.progress());
  }

  /** Appends an event; no secret value leaves in one. */
  async event(level: 'summary' | 'step' | 'debug', kind: string, message: string, data?: unknown): Promise<void> {
    const json = data === undefined ? undefined : JSON.stringify(data);
    const scrubbed = json === undefined ? undefined : this.policy.scrub(json);
    await this.fenced.event({
      level,
      kind,
      message: this.policy.scrub(message),
      data: scrubbed === json ? data : JSON.parse(scrubbed as string),
    });
  }

  /** Whether `text` shows a secret value: then it does not leave (secret_in_answer), and the model is told. */
  async reveals(text: string, what: string, results: string[]): Promise<boolean> {
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
}
