// The plans (docs/billing.md), from the one table every service reads (libs/plans),
// in the ledger's unit.

import { MC_PER_CREDIT } from '@wap/billing';
import { PLANS, type PlanName } from '@wap/plans';

export type { PlanName };

export interface PlanLimits {
  monthlyAllowanceMc: bigint;
  concurrentBrowsers: number;
}

export const PLAN_LIMITS = Object.fromEntries(
  Object.entries(PLANS).map(([name, plan]) => [
    name,
    { monthlyAllowanceMc: BigInt(plan.creditsPerMonth) * MC_PER_CREDIT, concurrentBrowsers: plan.concurrentBrowsers },
  ]),
) as Readonly<Record<PlanName, PlanLimits>>;
