// A run waiting (docs/decisions/0019-agent-run-systems.md): for its caller's
// answer to the model's question, for a person's approval of a purchase or of
// an action a rule gates, or while a person drives its browser. The run
// pauses through the one store of pauses; paused, its time is not metered and
// an approval nobody gives lapses; what completed the pause is read in one
// place, once: a hand back, an answer for the model, a decision for the
// system that asked it.
import type { CaptchaOutcome } from '../../browser/types.js';
import { openApproval } from '../../domain/memory.js';
import { type PauseStore, readApproval } from '../../store/pauses.js';
import type { RunRow } from '../../store/runs.js';
import type { BrowserSystem } from './browser.js';
import { type RunContext, Stop } from './context.js';
import type { MeteringSystem } from './metering.js';

/** How often a paused run looks whether its pause was completed. */
const PAUSED_LOOK_MS = 250;

export interface PauseDeps {
  pauses: PauseStore;
  /** How long a run paused for an approval waits for it. */
  approvalTimeoutMs: number;
}

/** A person's decision on an approval the run asked, as the system that asked it reads it. */
export interface Decision {
  approved: boolean;
  /** An approved purchase's CVC, sealed for the run. */
  sealedCvc?: string;
}

export class PauseSystem {
  constructor(
    private readonly run: RunContext,
    private readonly metering: MeteringSystem,
    private readonly browser: BrowserSystem,
    private readonly deps: PauseDeps,
  ) {
    browser.onBlocked = (captcha, url) => this.handOver(captcha, url);
  }

  /**
   * A page the run stays behind, its captcha one the host could not solve: the run pauses for a
   * person (`pausedFor: control`, unmetered like any pause), saying why and where to take over,
   * and the step in flight stops; the hand back resumes it on the page the person left.
   */
  async handOver(captcha: CaptchaOutcome, url: string): Promise<void> {
    const { row } = this.run;
    const kind = captcha.kind ?? captcha.found[0] ?? 'captcha';
    const question =
      `The page ${url.slice(0, 300)} stays behind a ${kind} captcha that could not be solved here` +
      `${captcha.reason ? ` (${captcha.reason})` : ''}. Take control to solve it ` +
      `(POST /v1/agent/${row.id}/control {"action": "take"} answers the take-over link), then hand back.`;
    this.metering.pauseClock();
    await this.run.saveProgress();
    const taken = await this.deps.pauses.control(
      row.workspaceId,
      row.id,
      true,
      `paused: a ${kind} captcha waits for a person`,
    );
    if ('refused' in taken) {
      this.metering.resumeClock();
      return;
    }
    await this.run.event('summary', 'question', question, {
      question,
      pausedFor: 'control',
      captcha: kind,
      takeOver: `/v1/agent/${row.id}/control`,
    });
    // The model's step ends here: the checkpoint waits for the hand back.
    this.run.stepAbort.abort();
  }

  /** The model's question for its caller: the run pauses until it is answered. */
  async ask(question: string, results: string[]): Promise<'stop'> {
    this.run.memory.reply = { question, answer: '' };
    await this.pause('question', question);
    await this.run.event('summary', 'question', question, { question });
    await this.run.event('summary', 'status', 'paused: a question for the caller', {
      status: 'paused',
      pausedFor: 'question',
    });
    results.push(`ask: asked ${JSON.stringify(question.slice(0, 80))}`);
    this.run.memory.results = results;
    return 'stop';
  }

  /** Pauses the run until a person approves or denies (POST /v1/agent/{id}/answer with `approve`). */
  async askApproval(question: string, data: Record<string, unknown>): Promise<void> {
    await this.pause('approval', question);
    await this.run.event('summary', 'question', question, { question, approval: true, ...data });
    await this.run.event('summary', 'status', 'paused: waiting for an approval', {
      status: 'paused',
      pausedFor: 'approval',
    });
  }

  private async pause(kind: 'question' | 'approval', prompt: string): Promise<void> {
    this.metering.pauseClock();
    await this.run.saveProgress();
    await this.deps.pauses.open(this.run.row.id, this.run.fenced.replica, kind, prompt);
  }

  /**
   * Between steps: a cancel ends the run; a pause waits, unmetered, until it is completed (an approval
   * nobody gives ends the run once it lapses); then what completed it is read, a decision on an
   * approval handed to `decide`.
   */
  async checkpoint(decide: (decision: Decision) => Promise<void>): Promise<void> {
    let row = await this.run.renew();
    if (row.cancelRequested) return this.run.cancelled();
    if (row.status === 'paused') {
      this.metering.pauseClock();
      while (row.status === 'paused' && !row.cancelRequested) {
        if (this.run.signal.aborted) throw new Stop();
        if (row.pausedFor === 'approval' && this.approvalLapsed())
          return this.run.end('failed', {
            code: 'approval_timed_out',
            message: `No one approved or denied within ${Math.round(this.deps.approvalTimeoutMs / 1000)} s.`,
          });
        await this.run.idle(PAUSED_LOOK_MS);
        row = await this.run.renew();
      }
      if (row.cancelRequested) return this.run.cancelled();
      this.metering.resumeClock();
    }
    if (this.run.signal.aborted) throw new Stop();
    // Whatever stopped the last step (a take-over, a cancel asked and withdrawn) is over.
    if (this.run.stepAbort.signal.aborted) this.run.stepAbort = new AbortController();
    if (row.pausedFor || row.reply) await this.resumed(row, decide);
  }

  /** The one place a completed pause is read: a person's hand back, an answer, or a decision. */
  private async resumed(row: RunRow, decide: (decision: Decision) => Promise<void>): Promise<void> {
    if (row.pausedFor === 'control') {
      await this.browser.handBack(row.sessionId);
      this.run.memory.results = ['A person drove the browser meanwhile: look at the page afresh.'];
    }
    // A reply is an approval's decision when the run asked one, else the answer to its question.
    if (row.reply && openApproval(this.run.memory)) await decide(readApproval(row.reply));
    else if (row.reply)
      this.run.memory.reply = { question: this.run.memory.reply?.question ?? row.question ?? '', answer: row.reply };
    await this.deps.pauses.taken(row.id, this.run.fenced.replica);
  }

  /** Whether what the run asked approval for has waited past its time. */
  private approvalLapsed(): boolean {
    const asked = openApproval(this.run.memory)?.askedAt;
    return asked !== undefined && Date.now() - asked > this.deps.approvalTimeoutMs;
  }
}
