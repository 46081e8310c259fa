/**
 * The closed set of error codes (docs/errors.md), in the API's published
 * order. Clients branch on these, so adding or renaming one is a breaking
 * change of the public API, not a refactor.
 */
export const ERROR_CODES = [
  // General
  'unauthorized',
  'bad_request',
  'not_found',
  'method_not_allowed',
  'tenant_scope',
  'internal',
  'deadline_exceeded',
  // Capacity and plan
  'cap_exceeded',
  'no_capacity',
  'quota_exceeded',
  'concurrency_limit',
  'plan_required',
  'capability_unavailable',
  'decode_unavailable',
  'exit_unavailable',
  // Profiles
  'profile_in_use',
  'profile_not_found',
  // Pages and extraction
  'page_unreachable',
  'document_unrepresentable',
  'page_lost',
  'extraction_failed',
  'answer_lost',
  'search_refused',
  'lab_arm_forbidden',
  // Integrations
  'integration_check_failed',
  'integration_changed',
  // Secrets
  'secret_intent_invalid',
  'secret_intent_spent',
  'cvc_not_storable',
  'run_secrets_limit',
  'run_secret_undeliverable',
  'secret_in_answer',
  // Replay
  'replay_access_denied',
  'replay_control_denied',
  'replay_control_cross_site',
  // Purchases
  'spend_cap_required',
  'card_number_in_task',
  'merchant_not_allowed',
  'spend_cap_exceeded',
  'per_purchase_exceeded',
  'no_open_purchase',
  'approval_denied',
  'approval_timed_out',
  // Providers
  'provider_test_failed',
  'provider_cards_open',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The spec's grouping, used to lay out docs/errors.md. */
export const ERROR_GROUPS: ReadonlyArray<{ readonly name: string; readonly codes: readonly ErrorCode[] }> = [
  {
    name: 'General',
    codes: [
      'unauthorized',
      'bad_request',
      'not_found',
      'method_not_allowed',
      'tenant_scope',
      'internal',
      'deadline_exceeded',
    ],
  },
  {
    name: 'Capacity and plan',
    codes: [
      'cap_exceeded',
      'no_capacity',
      'quota_exceeded',
      'concurrency_limit',
      'plan_required',
      'capability_unavailable',
      'decode_unavailable',
      'exit_unavailable',
    ],
  },
  { name: 'Profiles', codes: ['profile_in_use', 'profile_not_found'] },
  {
    name: 'Pages and extraction',
    codes: [
      'page_unreachable',
      'document_unrepresentable',
      'page_lost',
      'extraction_failed',
      'answer_lost',
      'search_refused',
      'lab_arm_forbidden',
    ],
  },
  { name: 'Integrations', codes: ['integration_check_failed', 'integration_changed'] },
  {
    name: 'Secrets',
    codes: [
      'secret_intent_invalid',
      'secret_intent_spent',
      'cvc_not_storable',
      'run_secrets_limit',
      'run_secret_undeliverable',
      'secret_in_answer',
    ],
  },
  { name: 'Replay', codes: ['replay_access_denied', 'replay_control_denied', 'replay_control_cross_site'] },
  {
    name: 'Purchases',
    codes: [
      'spend_cap_required',
      'card_number_in_task',
      'merchant_not_allowed',
      'spend_cap_exceeded',
      'per_purchase_exceeded',
      'no_open_purchase',
      'approval_denied',
      'approval_timed_out',
    ],
  },
  { name: 'Providers', codes: ['provider_test_failed', 'provider_cards_open'] },
];

const known: ReadonlySet<string> = new Set(ERROR_CODES);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && known.has(value);
}
