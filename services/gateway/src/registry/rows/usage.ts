import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ApiError } from '@wap/errors';
import { z } from 'zod';
import { capability } from '../types.js';
import { toUsageObject, usageObject } from '../usage-shape.js';

const DAY = 86_400_000;

const query = z.strictObject({
  from: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('Start of the range, inclusive (ISO 8601). Default: 30 days before `to`.'),
  to: z.iso.datetime({ offset: true }).optional().describe('End of the range, exclusive (ISO 8601). Default: now.'),
});

const response = z.object({
  from: z.string(),
  to: z.string(),
  total: usageObject.describe('Everything in the range: exactly the sum of the `usage` objects of the calls in it.'),
  byCapability: z.array(usageObject.extend({ capability: z.string() })),
  byDay: z.array(usageObject.extend({ day: z.string().describe('YYYY-MM-DD') })).describe('UTC days, oldest first.'),
});

export const usageRow = capability({
  name: 'usage',
  method: 'get',
  path: '/v1/usage',
  tag: 'Usage',
  summary: 'Metered usage over a time range',
  description:
    'Aggregates the usage already attached to each billable call, by meter, by capability and by UTC day, over `[from, to)`: at most 366 days; `from` not before `to` is `400 bad_request` (`details.issues[].path` `query.from`). Free; safe to poll.',
  backend: 'billing-ledger',
  bills: [],
  mcpTool: 'service_usage_get',
  request: { query },
  response,
  errors: [],
  handler: async ({ principal, upstreams }, { query }) => {
    const to = query.to ? new Date(query.to) : new Date();
    const from = query.from ? new Date(query.from) : new Date(to.getTime() - 30 * DAY);
    if (from >= to)
      throw new ApiError('bad_request', { issues: [{ path: 'query.from', message: 'must be before `to`' }] });
    if (to.getTime() - from.getTime() > 366 * DAY) {
      throw new ApiError('bad_request', { issues: [{ path: 'query.from', message: 'the range is at most 366 days' }] });
    }
    const u = await upstreams.ledger.usage({
      workspaceId: principal.workspaceId,
      from: timestampFromDate(from),
      to: timestampFromDate(to),
    });
    return {
      from: from.toISOString(),
      to: to.toISOString(),
      total: toUsageObject(u.total),
      byCapability: u.byCapability.map((b) => ({ capability: b.key, ...toUsageObject(b) })),
      byDay: u.byDay.map((b) => ({ day: b.key, ...toUsageObject(b) })),
    };
  },
});
