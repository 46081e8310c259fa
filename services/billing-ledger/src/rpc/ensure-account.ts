import { MC_PER_CREDIT } from '@wap/billing';
import { PLANS, type PlanName } from '@wap/plans';
import type { ledger } from '@wap/proto';
import { planEnum, planName } from '../views/convert.js';
import { accepted } from '../views/refusal.js';
import { clocked, type LedgerDeps } from './deps.js';
import { Issues, MAX_MILLICREDITS } from './parse.js';

/** The account's terms on `plan` (libs/plans), in the ledger's unit. */
const termsOf = (plan: PlanName, monthlyMc?: bigint) => ({
  plan,
  monthlyMc: monthlyMc ?? BigInt(PLANS[plan].creditsPerMonth) * MC_PER_CREDIT,
  slots: PLANS[plan].concurrentBrowsers,
});

/**
 * Opens the account (on the free plan when none is named) or moves it to the
 * named plan. A custom monthly allowance replaces the plan's; naming a plan
 * without one brings back the plan's own. Neither named: nothing changes.
 */
export const ensureAccount = (deps: LedgerDeps) => async (req: ledger.EnsureAccountRequest) => {
  const issues = new Issues();
  const workspaceId = issues.text('workspace_id', req.workspaceId, { max: 128 });
  const named = planName(req.plan);
  if (req.plan !== 0 && !named) issues.add('plan', 'unknown plan');
  const custom = req.monthlyAllowanceMillicredits;
  if (custom !== undefined && (custom < 0n || custom > MAX_MILLICREDITS)) {
    issues.add('monthly_allowance_millicredits', `must be between 0 and ${MAX_MILLICREDITS}`);
  }
  issues.throwIfAny();
  const change = named ? termsOf(named, custom) : custom !== undefined ? { monthlyMc: custom } : {};
  const answer = accepted(
    await deps.money.ensureAccount(
      workspaceId,
      { open: termsOf(named ?? 'free', custom), change },
      clocked(deps.clock),
    ),
    workspaceId,
  );
  return {
    plan: planEnum(answer.plan),
    concurrentBrowsers: answer.slots,
    monthlyAllowanceMillicredits: BigInt(answer.allowance),
  };
};
