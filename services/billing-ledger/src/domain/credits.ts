// The read side of the balance: what Credits answers, from the stored rows.
// The same arithmetic as the ledger's SQL functions use to decide: a lapsed
// remainder no longer counts, an expired hold holds nothing.
import { allowancePeriod } from './period.js';

export interface AccountRow {
  plan: string;
  monthlyAllowance: bigint;
  allowancePeriodStart: Date;
  allowance: bigint;
  allowanceSpent: bigint;
}

export interface GrantRow {
  id: string;
  kind: string;
  amount: bigint;
  spent: bigint;
  lapsesAt: Date | null;
  createdAt: Date;
}

export interface GrantView extends GrantRow {
  remaining: bigint;
}

export interface CreditsView {
  grants: GrantView[];
  granted: bigint;
  spent: bigint;
  remaining: bigint;
  held: bigint;
  plan: string;
  allowance: bigint;
  allowanceSpent: bigint;
  allowanceResetsAt: Date;
  available: bigint;
}

export const isLive = (grant: Pick<GrantRow, 'lapsesAt'>, now: Date) =>
  grant.lapsesAt === null || grant.lapsesAt.getTime() > now.getTime();

export function creditsView(account: AccountRow, grants: readonly GrantRow[], held: bigint, now: Date): CreditsView {
  const period = allowancePeriod(now);
  // An account nothing has touched this month still shows last month's row: a new period starts afresh.
  const rolled = account.allowancePeriodStart.getTime() < period.start.getTime();
  const allowance = rolled ? account.monthlyAllowance : account.allowance;
  const allowanceSpent = rolled ? 0n : account.allowanceSpent;
  const views = grants.map((g) => ({ ...g, remaining: isLive(g, now) ? g.amount - g.spent : 0n }));
  const sum = (pick: (g: GrantView) => bigint) => views.reduce((total, g) => total + pick(g), 0n);
  const remaining = sum((g) => g.remaining);
  const available = allowance - allowanceSpent + remaining - held;
  return {
    grants: views,
    granted: sum((g) => g.amount),
    spent: sum((g) => g.spent),
    remaining,
    held,
    plan: account.plan,
    allowance,
    allowanceSpent,
    allowanceResetsAt: period.end,
    available: available > 0n ? available : 0n,
  };
}
