import { z } from 'zod';
import type { CodesOf } from '../codes.js';
import { GRPC_STATUS as G } from '../grpc-status.js';
import { noDetails } from './shared.js';
import type { Entries } from './spec.js';

const money = {
  currency: z.string().describe('ISO 4217 code.'),
};

/**
 * Purchase limits are the caller's own policy over their own card, so they
 * answer 403, not 402: 402 is kept for our credits, and a client that tops up
 * on 402 must not do so because a merchant purchase was capped.
 */
export const purchases: Entries<CodesOf<'Purchases'>> = {
  spend_cap_required: {
    status: 422,
    grpc: G.INVALID_ARGUMENT,
    message: 'A task that may purchase needs a spend cap.',
    when: 'An agent task allowed to make purchases is submitted without a spend cap.',
    details: z.strictObject({ field: z.string().describe('The missing request field.') }),
  },
  card_number_in_task: {
    status: 422,
    grpc: G.INVALID_ARGUMENT,
    message: 'The task text contains a card number.',
    when: 'The task text includes what looks like a payment card number; cards are stored as secrets and referenced by handle.',
    // Deliberately empty: echoing where the number sits would help no one and risks logging it.
    details: noDetails,
  },
  merchant_not_allowed: {
    status: 403,
    grpc: G.PERMISSION_DENIED,
    message: 'The merchant is not allowed for purchases.',
    when: "The run tries to buy from a merchant outside the workspace's allowed merchants.",
    details: z.strictObject({ merchant: z.string() }),
  },
  spend_cap_exceeded: {
    status: 403,
    grpc: G.PERMISSION_DENIED,
    message: "The purchase would exceed the run's spend cap.",
    when: 'The purchase amount plus what the run already spent exceeds the spend cap the run was submitted with.',
    details: z.strictObject({
      cap: z.int().nonnegative().describe('Minor units of currency.'),
      spent: z.int().nonnegative().describe('Minor units of currency.'),
      amount: z.int().nonnegative().describe('Minor units of currency.'),
      ...money,
    }),
  },
  per_purchase_exceeded: {
    status: 403,
    grpc: G.PERMISSION_DENIED,
    message: 'The purchase exceeds the per-purchase limit.',
    when: 'A single purchase is larger than the most one purchase may cost.',
    details: z.strictObject({
      limit: z.int().nonnegative().describe('Minor units of currency.'),
      amount: z.int().nonnegative().describe('Minor units of currency.'),
      ...money,
    }),
  },
  no_open_purchase: {
    status: 409,
    grpc: G.FAILED_PRECONDITION,
    message: 'There is no purchase awaiting approval.',
    when: 'An approval or denial is sent for a run that has no purchase waiting for one.',
    details: z.strictObject({ runId: z.string() }),
  },
  approval_denied: {
    status: 403,
    grpc: G.PERMISSION_DENIED,
    message: 'The purchase was not approved.',
    when: 'The approver rejected a purchase the run asked to make.',
    details: z.strictObject({ purchaseId: z.string() }),
  },
  approval_timed_out: {
    status: 409,
    grpc: G.FAILED_PRECONDITION,
    message: 'No approval arrived in time for the purchase.',
    when: 'A purchase waiting for approval got no decision before its approval window closed.',
    details: z.strictObject({
      purchaseId: z.string(),
      windowSeconds: z.int().nonnegative().describe('How long approval was awaited.').optional(),
    }),
  },
};

export const providers: Entries<CodesOf<'Providers'>> = {
  provider_test_failed: {
    status: 422,
    grpc: G.FAILED_PRECONDITION,
    message: 'The card provider did not pass the connection test.',
    when: 'Connecting a card-issuing provider failed its test call: bad credentials, wrong account, or no answer.',
    details: z.strictObject({
      provider: z.string(),
      reason: z.string().describe("The provider's reason, when it gives one.").optional(),
    }),
  },
  provider_cards_open: {
    status: 409,
    grpc: G.FAILED_PRECONDITION,
    message: 'The provider still has open cards.',
    when: 'A card provider is removed while cards it issued are still open; they must be closed first.',
    details: z.strictObject({ provider: z.string(), openCards: z.int().nonnegative() }),
  },
};
