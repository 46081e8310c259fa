import { ApiError } from '@wap/errors';
import type { ledger } from '@wap/proto';
import { creditsView } from '../domain/credits.js';
import { grantKindEnum, planEnum, timestamp } from '../views/convert.js';
import type { LedgerDeps } from './deps.js';
import { Issues } from './parse.js';

export const credits = (deps: LedgerDeps) => async (req: ledger.CreditsRequest) => {
  const issues = new Issues();
  const workspaceId = issues.text('workspace_id', req.workspaceId, { max: 128 });
  issues.throwIfAny();
  const now = deps.clock();
  const balance = await deps.reads.balance(workspaceId, now);
  if (!balance) throw new ApiError('not_found', { resource: 'account', id: workspaceId });
  const view = creditsView(balance.account, balance.grants, balance.held, now);
  return {
    grants: view.grants.map((g) => ({
      grantId: g.id,
      kind: grantKindEnum(g.kind),
      grantedMillicredits: g.amount,
      spentMillicredits: g.spent,
      remainingMillicredits: g.remaining,
      ...(g.lapsesAt && { lapsesAt: timestamp(g.lapsesAt) }),
      createdAt: timestamp(g.createdAt),
    })),
    grantedMillicredits: view.granted,
    spentMillicredits: view.spent,
    remainingMillicredits: view.remaining,
    heldMillicredits: view.held,
    plan: planEnum(view.plan),
    allowanceMillicredits: view.allowance,
    allowanceSpentMillicredits: view.allowanceSpent,
    allowanceResetsAt: timestamp(view.allowanceResetsAt),
    availableMillicredits: view.available,
  };
};
