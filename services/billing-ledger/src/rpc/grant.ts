import type { ledger } from '@wap/proto';
import { requestHash } from '../domain/idempotency.js';
import { dateOf, grantKindName } from '../views/convert.js';
import { accepted } from '../views/refusal.js';
import { clocked, type LedgerDeps } from './deps.js';
import { Issues } from './parse.js';

export const grant = (deps: LedgerDeps) => async (req: ledger.GrantRequest) => {
  const at = clocked(deps.clock);
  const issues = new Issues();
  const workspaceId = issues.text('workspace_id', req.workspaceId, { max: 128 });
  const key = issues.text('idempotency_key', req.idempotencyKey, { max: 255 });
  const kind = grantKindName(req.kind);
  if (!kind) issues.add('kind', 'unknown grant kind');
  const amountMc = issues.amount('millicredits', req.millicredits);
  const note = issues.text('note', req.note, { min: 0, max: 1000 });
  const lapsesAt = dateOf(req.lapsesAt) ?? null;
  issues.throwIfAny();
  const hash = requestHash('grant', { workspaceId, kind, amountMc, lapsesAt, note });
  const answer = accepted(
    await deps.money.grant({ workspaceId, key, hash, kind: kind!, amountMc, lapsesAt, note }, at),
    workspaceId,
  );
  return { grantId: answer.grant_id };
};
