// A run's secrets and purchases (docs/secrets.md, "In a run"): a part of a
// granted secret filled into a field through a single-use intent for this
// run, handle and host, and only where every frame above the field may have
// it; a purchase checked against the run's limits (a breach ends the run with
// its code), then approved by a person while the run waits, recorded, and its
// card filled; the CVC an approval brings kept in this process for one fill.
import { isApiError } from '@wap/errors';
import { unsealText } from '@wap/sealed';
import { hostOf } from '../../domain/rules/domains.js';
import { CVC_PURPOSE, hostAllowed } from '../../domain/secrets.js';
import { describeAction, type StepAction } from '../../domain/step.js';
import type { SecretIntents } from '../../store/intents.js';
import { fractionDigits, major, PARTS, partOf } from '../run-policy.js';
import type { BrowserSystem } from './browser.js';
import type { RunContext } from './context.js';
import type { Decision, PauseSystem } from './pauses.js';

export interface SecretDeps {
  /** Where a fill's single-use intent is made and redeemed; none, no secret is filled. */
  intents: SecretIntents | undefined;
  /** The key an approval's CVC is sealed with (the secrets' key); unset, no CVC is taken. */
  secretsKey: string | undefined;
}

export class SecretSystem {
  /** The CVC an approved card purchase brought, until its fill: this process only. */
  private cvc: string | undefined;

  constructor(
    private readonly run: RunContext,
    private readonly browser: BrowserSystem,
    private readonly pauses: PauseSystem,
    private readonly deps: SecretDeps,
  ) {}

  /** Fills a part of a granted secret into a field: a single-use intent for this run, handle and host, redeemed at once. */
  async fill(
    action: Extract<StepAction, { action: 'fill_secret' }>,
    results: string[],
    pageUrl: string,
  ): Promise<'ok' | 'failed'> {
    const key = describeAction(action);
    const refuse = async (code: string, message: string) => {
      results.push(`${key}: not filled: ${message}`.slice(0, 500));
      await this.run.event('step', 'dead_end', `${key}: ${code}`, { code, handle: action.handle });
      return 'failed' as const;
    };
    const { policy } = this.run;
    const kind = policy.kindOf(action.handle);
    if (kind && !PARTS[kind].includes(action.part))
      return refuse('bad_request', `${action.handle} is a ${kind}: its parts are ${PARTS[kind].join(', ')}`);
    if (kind === 'card' && this.run.memory.purchase?.state !== 'approved')
      return refuse(
        'no_open_purchase',
        'a card is filled only for an approved purchase: declare it with purchase first',
      );
    const intents = this.deps.intents;
    if (!hostOf(pageUrl) || !intents) return refuse('run_secret_undeliverable', 'this page takes no secrets');
    const driver = this.browser.driver;
    // A field in a frame goes to that frame's site: every frame from the field's up to the page's
    // own must be on the secret's domains, not only the page the model sees.
    const frames = await driver.frameHosts(action.index);
    if (typeof frames === 'string') return refuse('run_secret_undeliverable', `[${action.index}] is ${frames}`);
    const foreign = policy.foreignFrame(action.handle, frames);
    if (foreign)
      return refuse(
        'run_secret_undeliverable',
        `[${action.index}] is in a frame of ${foreign}, which is not among ${action.handle}'s domains`,
      );
    // The page's own host is the intent's: outside the secret's domains, the intent is refused.
    const host = frames.at(-1) as string;
    const use = { runId: this.run.row.id, handle: action.handle, host };
    let value: string | undefined;
    try {
      const intent = await intents.create(use);
      const secret = await intents.redeem(intent.id, use);
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
    await this.run.event('step', 'secret', `filled ${action.part} of ${action.handle}`, {
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
  async purchase(
    action: Extract<StepAction, { action: 'purchase' }>,
    results: string[],
    pageUrl: string,
  ): Promise<'failed' | 'stop'> {
    const limits = this.run.policy.grants.purchases;
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
      return this.run.end('failed', {
        code: 'merchant_not_allowed',
        message: `The purchase on ${host || 'this page'} is not among the run's merchants (${limits.merchants.join(', ')}).`,
      });
    if (limits.perPurchaseLimit !== null && amount > limits.perPurchaseLimit)
      return this.run.end('failed', {
        code: 'per_purchase_exceeded',
        message: `The purchase of ${major(amount, currency)} is over the limit of ${major(limits.perPurchaseLimit, currency)} a purchase.`,
      });
    const spent = this.run.memory.spent ?? 0;
    if (spent + amount > limits.spendCap)
      return this.run.end('failed', {
        code: 'spend_cap_exceeded',
        message: `The purchase of ${major(amount, currency)} would take the run past its spend cap of ${major(limits.spendCap, currency)} (${major(spent, currency)} spent).`,
      });
    this.run.memory.purchase = {
      merchant,
      host,
      amount,
      currency,
      item: action.item,
      state: 'asked',
      askedAt: Date.now(),
    };
    results.push(`purchase: waiting for a person to approve ${major(amount, currency)} at ${merchant}`);
    this.run.memory.results = results;
    await this.pauses.askApproval(
      `Approve the purchase of ${action.item.slice(0, 200) || 'this order'} for ${major(amount, currency)} at ${merchant} (${host})?`,
      { purchase: { merchant, host, amount: major(amount, currency), item: action.item.slice(0, 300) } },
    );
    return 'stop';
  }

  /**
   * A person's decision, with the CVC it may bring: an approved purchase is a record of the run and
   * its card may be filled; a denied one ends the run. False when the run asked approval of no purchase.
   */
  async decided(decision: Decision): Promise<boolean> {
    // The CVC is opened here, kept in this process for the purchase's one fill, and never written back.
    this.cvc = undefined;
    if (decision.sealedCvc && this.deps.secretsKey) {
      try {
        this.cvc = unsealText(this.deps.secretsKey, CVC_PURPOSE, this.run.row.id, decision.sealedCvc);
      } catch {
        this.run.log.warn('an approval brought a CVC that does not open');
      }
    }
    const { memory } = this.run;
    const purchase = memory.purchase;
    if (purchase?.state !== 'asked') return false;
    if (!decision.approved)
      return this.run.end('failed', {
        code: 'approval_denied',
        message: `The purchase of ${major(purchase.amount, purchase.currency)} at ${purchase.merchant} was denied.`,
      });
    memory.purchase = { ...purchase, state: 'approved' };
    memory.spent = (memory.spent ?? 0) + purchase.amount;
    await this.run.fenced.record({
      purchase: {
        merchant: purchase.merchant,
        host: purchase.host,
        item: purchase.item,
        amount: major(purchase.amount, purchase.currency),
        currency: purchase.currency,
        approvedAt: new Date().toISOString(),
      },
    });
    memory.results = [
      `purchase approved: fill the card (fill_secret) and complete it${this.cvc ? '; the approval brought the cvc (part cvc)' : ''}`,
    ];
    return true;
  }
}
