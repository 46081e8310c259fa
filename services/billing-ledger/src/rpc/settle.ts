import { priceUsage } from '@wap/billing';
import type { ledger } from '@wap/proto';
import { quantitiesOf, requestHash } from '../domain/idempotency.js';
import { usageSummary } from '../views/convert.js';
import { accepted } from '../views/refusal.js';
import { clocked, type LedgerDeps } from './deps.js';
import { Issues, requireId } from './parse.js';

export const settle = (deps: LedgerDeps) => async (req: ledger.SettleRequest) => {
  const holdId = requireId('hold', req.holdId);
  const issues = new Issues();
  const key = issues.text('idempotency_key', req.idempotencyKey, { max: 255 });
  const meters = issues.meters('meters', req.meters);
  const reference = issues.text('reference', req.reference, { min: 0, max: 256 });
  issues.throwIfAny();
  const usage = priceUsage(meters);
  // A settle naming its call is that call's bill whichever hold it draws on (decision 0031).
  const hash = reference
    ? requestHash('settle', { reference, meters: quantitiesOf(usage) })
    : requestHash('settle', { holdId, meters: quantitiesOf(usage) });
  const answer = accepted(
    await deps.money.settle({ holdId, key, hash, usage, reference: reference || null }, clocked(deps.clock)),
    holdId,
  );
  return { usage: usageSummary(answer.usage), holdRemainingMillicredits: BigInt(answer.hold_remaining) };
};
