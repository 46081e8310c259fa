import { z } from 'zod';
import type { CodesOf } from '../codes.js';
import { GRPC_STATUS as G } from '../grpc-status.js';
import type { Entries } from './spec.js';

// Details name a secret only by its handle: a value must never reach an error.
export const secrets: Entries<CodesOf<'Secrets'>> = {
  secret_intent_invalid: {
    status: 422,
    grpc: G.FAILED_PRECONDITION,
    message: 'The intended use of the secret is not allowed.',
    when: 'A secret is asked for a use its record does not permit, such as a site or field other than the one it is bound to.',
    details: z.strictObject({ handle: z.string(), reason: z.string().optional() }),
  },
  secret_intent_spent: {
    status: 409,
    grpc: G.FAILED_PRECONDITION,
    message: 'The secret intent was already used.',
    when: 'A single-use authorisation to fill a secret is presented again after it was consumed.',
    details: z.strictObject({ handle: z.string() }),
  },
  cvc_not_storable: {
    status: 422,
    grpc: G.INVALID_ARGUMENT,
    message: 'Card security codes cannot be stored.',
    when: 'A card secret is created with its CVC, which is never stored.',
    details: z.strictObject({ field: z.string().describe('The request field that carried it.') }),
  },
  run_secrets_limit: {
    status: 422,
    grpc: G.INVALID_ARGUMENT,
    message: 'The run references more secrets than a run may use.',
    when: 'A run is submitted, or handed secrets mid-run, beyond the number of secrets one run may hold.',
    details: z.strictObject({ limit: z.int().nonnegative(), requested: z.int().nonnegative() }),
  },
  run_secret_undeliverable: {
    status: 422,
    grpc: G.FAILED_PRECONDITION,
    message: 'A secret could not be delivered to the run.',
    when: 'A secret the run uses cannot be filled: it was deleted, the run did not name it, or the page offers no field for it.',
    details: z.strictObject({ handle: z.string(), reason: z.enum(['deleted', 'not_granted', 'no_field']) }),
  },
  secret_in_answer: {
    status: 422,
    grpc: G.FAILED_PRECONDITION,
    message: 'The answer was withheld because it contained a stored secret.',
    when: "A run's answer or appended record would reveal the value of a stored secret.",
    details: z.strictObject({ handle: z.string() }),
  },
};

export const replay: Entries<CodesOf<'Replay'>> = {
  replay_access_denied: {
    status: 403,
    grpc: G.PERMISSION_DENIED,
    message: "This credential may not view the session's replay.",
    when: "The caller asks for a session's replay, live feed or export without the right to view it.",
    details: z.strictObject({ sessionId: z.string() }),
  },
  replay_control_denied: {
    status: 403,
    grpc: G.PERMISSION_DENIED,
    message: 'Taking control of this browser is not allowed.',
    when: 'A take-over is asked for a run that is not live or does not allow human control, or by a caller without that right.',
    details: z.strictObject({ sessionId: z.string(), reason: z.enum(['not_live', 'not_permitted']).optional() }),
  },
  replay_control_cross_site: {
    status: 403,
    grpc: G.PERMISSION_DENIED,
    message: "Human control is limited to the run's own site.",
    when: 'A person driving a taken-over browser tries to open a site other than the one the run was on.',
    details: z.strictObject({ host: z.string().describe('The host that was refused.') }),
  },
};
