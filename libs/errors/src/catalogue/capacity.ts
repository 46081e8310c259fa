import { PLAN_NAMES } from '@wap/plans';
import { z } from 'zod';
import type { CodesOf } from '../codes.js';
import { GRPC_STATUS as G } from '../grpc-status.js';
import { retryAfterSeconds } from './shared.js';
import type { Entries } from './spec.js';

/**
 * Money runs out → 402, throughput limits → 429, our own shortage → 503.
 * Clients handle the three differently (top up, back off, retry later), so the
 * status alone must tell them apart. See docs/decisions/0002-error-statuses.md.
 */
export const capacity: Entries<CodesOf<'Capacity and plan'>> = {
  cap_exceeded: {
    status: 402,
    grpc: G.RESOURCE_EXHAUSTED,
    message: 'A spending cap set by the caller would be exceeded.',
    when: "The charge would take spending past a cap the caller set, such as a crawl or run `limit` or the workspace spending cap; or a new monitor would pass the plan's number of monitors (then `cap` and `spent` count monitors: docs/monitors.md).",
    details: z.strictObject({
      cap: z.int().nonnegative().describe('The cap, in credits (in monitors for the monitor cap).'),
      spent: z.int().nonnegative().describe('Credits already spent against it (monitors the workspace keeps).'),
      needed: z.int().nonnegative().describe('Credits the call would add (1: the new monitor).'),
    }),
  },
  no_capacity: {
    status: 503,
    grpc: G.UNAVAILABLE,
    message: 'The service has no free capacity right now.',
    when: 'No browser or worker is free to take the work at this moment, or a database or service behind it is away for a moment (a restart, a failover); it clears without any change by the caller.',
    details: z.strictObject({ retryAfterSeconds: retryAfterSeconds.optional() }),
  },
  quota_exceeded: {
    status: 402,
    grpc: G.RESOURCE_EXHAUSTED,
    message: 'The credit balance cannot cover this call.',
    when: "The remaining credits, plan allowance plus grants as shown by `GET /v1/credits`, are fewer than the call's charge.",
    details: z.strictObject({
      needed: z.int().nonnegative().describe('Credits the call needs.'),
      available: z.int().nonnegative().describe('Credits left in the balance.'),
    }),
  },
  concurrency_limit: {
    status: 429,
    grpc: G.RESOURCE_EXHAUSTED,
    message: 'A limit on concurrent work or on the request rate was reached.',
    when: 'Starting the work would exceed the plan\'s concurrent browsers, the request exceeds the plan\'s requests per minute, a request with the same Idempotency-Key is still in progress, too many sign-ins failed for the account or from the address (docs/oauth.md), or the workspace has as many crawl watchers open on one gateway as it may (docs/migrating-from-firecrawl.md, "Watchers").',
    details: z.strictObject({
      kind: z
        .enum(['browsers', 'requests_per_minute', 'idempotency_key', 'sign_in', 'watchers'])
        .describe('Which limit was reached.'),
      limit: z
        .int()
        .nonnegative()
        .describe("The plan's limit (1 for an Idempotency-Key; for sign-ins, the failures allowed before a wait)."),
      active: z
        .int()
        .nonnegative()
        .describe(
          'Browsers open, requests counted in the sliding minute, requests holding the key, failed sign-ins, or crawl watchers open.',
        ),
      inUse: z
        .int()
        .nonnegative()
        .optional()
        .describe('For `browsers`: the same count as `active`, under the name browser clients read.'),
      retryAfterSeconds: retryAfterSeconds.optional(),
    }),
  },
  plan_required: {
    status: 403,
    grpc: G.PERMISSION_DENIED,
    message: "The workspace's plan does not include this capability.",
    when: 'The call uses a capability or option that only a higher plan includes.',
    details: z.strictObject({
      plan: z.enum(PLAN_NAMES).describe('Lowest plan that includes it.'),
      current: z.enum(PLAN_NAMES).describe("The workspace's plan."),
    }),
  },
  capability_unavailable: {
    status: 503,
    grpc: G.UNAVAILABLE,
    message: 'This capability is temporarily unavailable.',
    when: 'The capability has a registry row but the service behind it is down, switched off or mid-rollout.',
    details: z.strictObject({ capability: z.string().optional(), retryAfterSeconds: retryAfterSeconds.optional() }),
  },
  decode_unavailable: {
    status: 503,
    grpc: G.UNAVAILABLE,
    message: 'No model capacity is free to generate a response right now.',
    when: 'The language model that plans agent steps, extracts data or answers has no decoding capacity at the moment.',
    details: z.strictObject({ retryAfterSeconds: retryAfterSeconds.optional() }),
  },
  exit_unavailable: {
    status: 503,
    grpc: G.UNAVAILABLE,
    message: 'The requested network exit is not available.',
    when: "The profile's pinned exit, or the exit location asked for, cannot carry traffic at the moment.",
    details: z.strictObject({
      exit: z.string().describe('The pinned exit or location asked for.').optional(),
      retryAfterSeconds: retryAfterSeconds.optional(),
    }),
  },
};
