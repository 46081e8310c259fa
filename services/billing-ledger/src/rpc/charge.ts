import { priceUsage } from '@wap/billing';
import type { ledger } from '@wap/proto';
import { quantitiesOf, requestHash } from '../domain/idempotency.js';
import { usageSummary } from '../views/convert.js';
import { accepted } from '../views/refusal.js';
import { clocked, type LedgerDeps } from './deps.js';
import { Issues } from './parse.js';

/** Work already done: charged up to the available balance, the shortfall recorded, never refused for money. */
export const charge = (deps: LedgerDeps) => async (req: ledger.ChargeRequest) => {
  const issues = new Issues();
  const workspaceId = issues.text('workspace_id', req.workspaceId, { max: 128 });
  const key = issues.text('idempotency_key', req.idempotencyKey, { max: 255 });
  const capability = issues.text('capability', req.capability, { max: 64 });
  const reference = issues.text('reference', req.reference, { min: 0, max: 256 });
  const meters = issues.meters('meters', req.meters);
  issues.throwIfAny();
  const usage = priceUsage(meters);
  const hash = requestHash('charge', { workspaceId, capability, reference, meters: quantitiesOf(usage) });
  const answer = accepted(
    await deps.money.charge({ workspaceId, key, hash, capability, reference, usage }, clocked(deps.clock)),
    workspaceId,
  );
  return { usage: usageSummary(answer.usage) };
};
