import { timestampMs } from '@bufbuild/protobuf/wkt';
import { GRANT_KIND_NAMES, grantKinds, PLAN_NAMES, plans } from '@wap/plans';
import { z } from 'zod';
import type { CreditsView } from '../../clients/upstreams.js';
import { capability } from '../types.js';
import { credits, isoTime } from '../usage-shape.js';

const grant = z.object({
  id: z.string(),
  kind: z.enum(GRANT_KIND_NAMES),
  granted: z.number(),
  spent: z.number(),
  remaining: z.number(),
  lapsesAt: z.string().nullable().describe('When what is left stops being spendable (ISO 8601).'),
  createdAt: z.string().nullable(),
});

const response = z.object({
  granted: z.number().describe('Credits granted by every live grant.'),
  spent: z.number().describe('Credits spent from those grants.'),
  remaining: z.number().describe('Credits left in those grants.'),
  grants: z.array(grant).describe('Each grant, soonest lapse first.'),
  held: z.number().describe('Credits reserved by work in progress (a running crawl, say): not spent, not available.'),
  available: z
    .number()
    .describe('What new work can draw on now: the plan allowance left plus grants left, less what is held.'),
  allowance: z
    .object({
      plan: z.enum(PLAN_NAMES),
      credits: z.number(),
      spent: z.number(),
      resetsAt: z.string().nullable(),
    })
    .describe('The monthly plan allowance, reported apart: it is not a grant.'),
});

/** The first moment after `now` a view changes by itself: a grant lapses, the allowance resets. */
export function changesBySelfAt(view: CreditsView, now: number): number {
  const moments = [view.allowanceResetsAt, ...view.grants.map((g) => g.lapsesAt)]
    .map((t) => (t ? timestampMs(t) : Number.POSITIVE_INFINITY))
    .filter((ms) => ms > now); // a grant that lapsed already changes nothing more
  return Math.min(Number.POSITIVE_INFINITY, ...moments);
}

export const creditsRow = capability({
  name: 'credits',
  method: 'get',
  path: '/v1/credits',
  tag: 'Credits',
  summary: 'Granted, spent and remaining credits',
  description:
    'Every credit grant (promotional, student, purchased) with what was spent from it, what is left and when it lapses. The monthly plan allowance is reported apart under `allowance`. Free; safe to poll.',
  backend: 'billing-ledger',
  bills: [],
  mcpTool: 'service_credits_get',
  request: {},
  response,
  errors: [],
  handler: async ({ principal, upstreams, ledgerViews }) => {
    const c = await ledgerViews.get(
      principal.workspaceId,
      'credits',
      () => upstreams.ledger.credits({ workspaceId: principal.workspaceId }),
      (view) => changesBySelfAt(view, Date.now()),
    );
    return {
      granted: credits(c.grantedMillicredits),
      spent: credits(c.spentMillicredits),
      remaining: credits(c.remainingMillicredits),
      grants: c.grants.map((g) => ({
        id: g.grantId,
        kind: grantKinds.toName(g.kind) ?? 'promotional',
        granted: credits(g.grantedMillicredits),
        spent: credits(g.spentMillicredits),
        remaining: credits(g.remainingMillicredits),
        lapsesAt: isoTime(g.lapsesAt),
        createdAt: isoTime(g.createdAt),
      })),
      held: credits(c.heldMillicredits),
      available: credits(c.availableMillicredits),
      allowance: {
        plan: plans.toName(c.plan) ?? principal.plan,
        credits: credits(c.allowanceMillicredits),
        spent: credits(c.allowanceSpentMillicredits),
        resetsAt: isoTime(c.allowanceResetsAt),
      },
    };
  },
});
