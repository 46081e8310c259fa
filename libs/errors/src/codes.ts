/**
 * The closed set of error codes (docs/errors.md), in groups, in the API's
 * published order: the one place a code is written. Clients branch on these,
 * so adding or renaming one is a breaking change of the public API, not a
 * refactor. Each group's catalogue file (catalogue/) describes exactly its
 * group's codes, and docs/errors.md is laid out by group.
 */
export const ERROR_GROUPS = [
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
] as const satisfies ReadonlyArray<{ readonly name: string; readonly codes: readonly string[] }>;

export type ErrorGroupName = (typeof ERROR_GROUPS)[number]['name'];
export type ErrorCode = (typeof ERROR_GROUPS)[number]['codes'][number];
/** The codes of one group. */
export type CodesOf<G extends ErrorGroupName> = Extract<(typeof ERROR_GROUPS)[number], { name: G }>['codes'][number];

/** Every code, in the published order. */
export const ERROR_CODES = ERROR_GROUPS.flatMap((g) => g.codes) as unknown as readonly [ErrorCode, ...ErrorCode[]];

const known: ReadonlySet<string> = new Set(ERROR_CODES);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && known.has(value);
}
