// The workspace's rules on a run's actions (docs/rules.md): what an action is
// to the gates (its kind, the URL it acts on, whether a click or an Enter
// submits a form, what the run has spent and bought), the verdict, a refusal
// told to the model and named in the events, and an approval a rule asks for:
// asked of a person through the pauses, and the action let through once when
// it is given.
import type { ActionContext } from '../../domain/rules/check.js';
import { hostOf } from '../../domain/rules/domains.js';
import { describeAction, type StepAction } from '../../domain/step.js';
import { fractionDigits } from '../run-policy.js';
import type { BrowserSystem } from './browser.js';
import type { RunContext } from './context.js';
import type { MeteringSystem } from './metering.js';
import type { Decision, PauseSystem } from './pauses.js';

export class GateSystem {
  constructor(
    private readonly run: RunContext,
    private readonly metering: MeteringSystem,
    private readonly browser: BrowserSystem,
    private readonly pauses: PauseSystem,
  ) {}

  /**
   * The workspace's gates on an action: undefined lets it run; a refusal ('failed') is told to the
   * model and named in the events; a rule that asks approval pauses the run for a person ('stop').
   */
  async check(action: StepAction, pageUrl: string, results: string[]): Promise<'failed' | 'stop' | undefined> {
    const context = await this.contextOf(action, pageUrl);
    if (!context) return undefined;
    const { memory, policy } = this.run;
    const key = describeAction(action);
    const approved = memory.approval?.state === 'approved' && memory.approval.key === key;
    const verdict = policy.check({ ...context, approved });
    if (verdict.allowed) {
      if (approved) memory.approval = undefined;
      return undefined;
    }
    if (verdict.approval) {
      memory.approval = { key, rule: verdict.rule, state: 'asked', askedAt: Date.now() };
      results.push(
        `${key}: waits for a person's approval (rule ${JSON.stringify(verdict.rule)}); do it again once approved`,
      );
      memory.results = results;
      await this.pauses.askApproval(
        `Approve this action? ${key} on ${hostOf(pageUrl) ?? 'this page'}: ${verdict.why}`,
        {
          rule: verdict.rule,
          action: key,
        },
      );
      return 'stop';
    }
    results.push(`${key}: blocked by the workspace rule ${JSON.stringify(verdict.rule)}: ${verdict.why}`.slice(0, 500));
    await this.run.event('step', 'blocked', `${key} blocked by a rule: ${verdict.rule}`, {
      rule: verdict.rule,
      why: verdict.why,
      action: key,
    });
    return 'failed';
  }

  /** A person's decision on an action the run asked approval for: approved, it runs once when done again. */
  decided(decision: Decision): void {
    const { memory } = this.run;
    const approval = memory.approval;
    if (approval?.state !== 'asked') return;
    memory.approval = decision.approved ? { ...approval, state: 'approved' } : undefined;
    memory.results = [
      decision.approved ? `${approval.key}: approved; do it now` : `${approval.key}: denied by a person; do not do it`,
    ];
  }

  /** What the action is to the workspace's gates: its kind and the URL it acts on; undefined for the run's own. */
  private async contextOf(action: StepAction, pageUrl: string): Promise<ActionContext | undefined> {
    const { policy, memory } = this.run;
    const base = { url: pageUrl, step: this.run.steps, runSpentCredits: Number(this.metering.spentMc()) / 1_000 };
    switch (action.action) {
      case 'navigate':
        return { ...base, kind: 'navigate', url: action.url };
      case 'click':
        return {
          ...base,
          kind:
            policy.gatesSubmits && (await this.browser.driver.formRole(action.index)) === 'submit' ? 'submit' : 'click',
        };
      case 'type':
        return {
          ...base,
          kind:
            action.submit && policy.gatesSubmits && (await this.browser.driver.formRole(action.index)) !== null
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
          secretDomains: policy.secretDomains(action.handle) ?? [],
        };
      case 'purchase': {
        const currency = action.currency.toUpperCase();
        return {
          ...base,
          kind: 'purchase',
          purchase: { merchant: action.merchant, amount: action.amount, currency },
          runPurchases: memory.spent ? [{ amount: memory.spent / 10 ** fractionDigits(currency), currency }] : [],
        };
      }
      default:
        // record, ask, finish, call_tool: the run's own, not the browser's.
        return undefined;
    }
  }
}
