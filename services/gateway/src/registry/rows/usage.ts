import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ApiError } from '@wap/errors';
import { z } from 'zod';
import { asQueryIssues, nextCursor, pageQuery } from '../paging.js';
import { capability } from '../types.js';
import { creditsByMeter, isoTime, toUsageObject, usageObject } from '../usage-shape.js';

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
  byDay: z
    .array(
      usageObject.extend({
        day: z.string().describe('YYYY-MM-DD'),
        creditsByMeter: z
          .record(z.string(), z.number().nonnegative())
          .describe(
            'What each meter’s quantity that day was priced at, in credits: they add up to `credits`, less any part of a call the balance could not cover (docs/billing.md).',
          ),
      }),
    )
    .describe('UTC days, oldest first.'),
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
  handler: async ({ principal, upstreams, ledgerViews }, { query }) => {
    const window = () => {
      const to = query.to ? new Date(query.to) : new Date();
      const from = query.from ? new Date(query.from) : new Date(to.getTime() - 30 * DAY);
      if (from >= to)
        throw new ApiError('bad_request', { issues: [{ path: 'query.from', message: 'must be before `to`' }] });
      if (to.getTime() - from.getTime() > 366 * DAY) {
        throw new ApiError('bad_request', {
          issues: [{ path: 'query.from', message: 'the range is at most 366 days' }],
        });
      }
      return { from, to };
    };
    const load = async () => {
      const { from, to } = window();
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
        byDay: u.byDay.map((b) => ({ day: b.key, ...toUsageObject(b), creditsByMeter: creditsByMeter(b) })),
      };
    };
    // The last 30 days, the read a dashboard polls, moves only when the workspace's usage settles, which the
    // ledger announces as a credits change: kept beside the credits view (its `to` says when it was read).
    if (query.from || query.to) return load();
    return ledgerViews.get(principal.workspaceId, 'usage', load);
  },
});

/** What `reference` names for each capability, as the services bill today. */
const REFERENCE =
  '`reference` is what the call was about: ' +
  'for `scrape`, `parse` and `search`, the request id its answer carried (the `X-Request-Id` header: yours when you sent one); ' +
  'for `crawl`, the crawl id; for `connect`, the browser session id; for `agent`, the run id (the proxy bytes of a run whose browser leaves through a residential exit are listed under its browser session, the run’s `sessionId`); ' +
  'for `monitors.check`, the monitor id; for `sessions.export` (bytes recorded at zero credits), the session id.';

const call = z.object({
  id: z.string().describe('The call’s id in the ledger.'),
  at: z.string().describe('When it was billed (ISO 8601).'),
  capability: z
    .string()
    .describe(
      'What billed it: `scrape`, `parse`, `search`, `crawl`, `connect`, `agent`, `monitors.check`, `sessions.export`.',
    ),
  reference: z.string().describe('What the call was about; see the route’s description.'),
  usage: usageObject.describe('Exactly the `usage` object the call answered with.'),
});

export const usageCallsRow = capability({
  name: 'usage.calls',
  method: 'get',
  path: '/v1/usage/calls',
  tag: 'Usage',
  summary: 'Recent billable calls, newest first',
  description:
    'Each billed call on its own (a scrape, a search, each settle of a crawl, a session, an agent run or a monitor check), newest first, a page at a time; resume with `cursor`. Work that runs a while is billed in steps, so it appears as several calls with the same `reference`. ' +
    REFERENCE +
    ' A `cursor` this route did not give is `400 bad_request` (`details.issues[].path` `query.cursor`). Free; safe to poll.',
  backend: 'billing-ledger',
  bills: [],
  mcpTool: 'service_usage_calls',
  request: {
    query: z.strictObject({
      ...pageQuery('Calls', 50),
    }),
  },
  response: z.object({
    calls: z.array(call).describe('Newest first.'),
    nextCursor,
  }),
  errors: [],
  handler: async ({ principal, upstreams, signal }, { query: q }) => {
    const page = await upstreams.ledger
      .listCalls({ workspaceId: principal.workspaceId, limit: q.limit, cursor: q.cursor ?? '' }, { signal })
      .catch(asQueryIssues);
    return {
      calls: page.calls.map((c) => ({
        id: c.id,
        at: isoTime(c.at) ?? '',
        capability: c.capability,
        reference: c.reference,
        usage: toUsageObject(c.usage),
      })),
      nextCursor: page.nextCursor || null,
    };
  },
});
