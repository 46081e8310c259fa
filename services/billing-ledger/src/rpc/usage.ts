import type { ledger } from '@wap/proto';
import { rollUpUsage, type UsageBucket } from '../domain/usage.js';
import { dateOf, pricedMeters } from '../views/convert.js';
import type { LedgerDeps } from './deps.js';
import { Issues } from './parse.js';

const DAY_MS = 24 * 3600 * 1000;
export const DEFAULT_USAGE_DAYS = 30;
export const MAX_USAGE_DAYS = 400;

const bucket = (b: UsageBucket) => ({ key: b.key, meters: pricedMeters(b.meters), millicredits: b.millicredits });

/** Usage over [from, to), by default the last 30 days. */
export const usage = (deps: LedgerDeps) => async (req: ledger.UsageRequest) => {
  const issues = new Issues();
  const workspaceId = issues.text('workspace_id', req.workspaceId, { max: 128 });
  // By default up to and including now: rows carry millisecond times, and the range excludes its end.
  const to = dateOf(req.to) ?? new Date(deps.clock().getTime() + 1);
  const from = dateOf(req.from) ?? new Date(to.getTime() - DEFAULT_USAGE_DAYS * DAY_MS);
  if (from.getTime() >= to.getTime()) issues.add('from', 'must be before to');
  else if (to.getTime() - from.getTime() > MAX_USAGE_DAYS * DAY_MS)
    issues.add('from', `at most ${MAX_USAGE_DAYS} days before to`);
  issues.throwIfAny();
  const rows = await deps.reads.usage(workspaceId, from, to);
  const report = rollUpUsage(rows.meters, rows.charged);
  return {
    total: { meters: pricedMeters(report.total.meters), millicredits: report.total.millicredits },
    byCapability: report.byCapability.map(bucket),
    byDay: report.byDay.map(bucket),
  };
};
