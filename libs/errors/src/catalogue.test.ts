import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ERROR_CODES, ERROR_GROUPS, ERRORS, errorSchema, type JsonSchema, toJsonSchema } from './index.js';

// Copied by hand from the published closed set (docs/errors.md), so a drift in ERROR_CODES fails here.
const SPEC_CODES = `
  unauthorized bad_request not_found method_not_allowed tenant_scope internal deadline_exceeded
  cap_exceeded no_capacity quota_exceeded concurrency_limit plan_required capability_unavailable
  decode_unavailable exit_unavailable
  profile_in_use profile_not_found
  page_unreachable document_unrepresentable page_lost extraction_failed answer_lost search_refused
  lab_arm_forbidden
  integration_check_failed integration_changed
  secret_intent_invalid secret_intent_spent cvc_not_storable run_secrets_limit run_secret_undeliverable
  secret_in_answer
  replay_access_denied replay_control_denied replay_control_cross_site
  spend_cap_required card_number_in_task merchant_not_allowed spend_cap_exceeded per_purchase_exceeded
  no_open_purchase approval_denied approval_timed_out
  provider_test_failed provider_cards_open
`
  .trim()
  .split(/\s+/);

const GRPC_NUMBERS = new Set([3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16]);

describe('error codes', () => {
  it('are exactly the 45 of docs/errors.md, unique and in its order', () => {
    assert.equal(SPEC_CODES.length, 45);
    assert.equal(new Set(ERROR_CODES).size, 45);
    assert.deepEqual([...ERROR_CODES], SPEC_CODES);
  });

  it('are grouped as docs/errors.md groups them, each once', () => {
    assert.deepEqual(
      ERROR_GROUPS.flatMap((g) => g.codes),
      [...ERROR_CODES],
    );
  });

  it('all have a catalogue entry and nothing else does', () => {
    assert.deepEqual(Object.keys(ERRORS).sort(), [...ERROR_CODES].sort());
  });
});

describe('catalogue', () => {
  for (const code of ERROR_CODES) {
    const spec = ERRORS[code];
    it(`${code} is complete and carries no values in its message`, () => {
      assert.ok(Number.isInteger(spec.status) && spec.status >= 400 && spec.status <= 599, '4xx or 5xx');
      assert.ok(GRPC_NUMBERS.has(spec.grpc), `grpc ${spec.grpc} is an error status`);
      assert.match(spec.message, /^[A-Z][^\n]*\.$/, 'one sentence');
      assert.doesNotMatch(spec.message, /\d|[{}%$<>`]/, 'no digits or placeholders');
      assert.ok(spec.when.length > 20, 'says when it is raised');
      assert.ok(isDetailsSchema(toJsonSchema(spec.details)), 'details is an object schema');
    });
  }

  it('gives each code a message of its own', () => {
    const messages = ERROR_CODES.map((c) => ERRORS[c].message);
    assert.equal(new Set(messages).size, messages.length);
  });

  // The choices a client most depends on; see docs/decisions/0002-error-statuses.md.
  it('keeps the key statuses', () => {
    const expected = {
      unauthorized: 401,
      tenant_scope: 403,
      not_found: 404,
      method_not_allowed: 405,
      bad_request: 400,
      internal: 500,
      deadline_exceeded: 408,
      quota_exceeded: 402,
      cap_exceeded: 402,
      concurrency_limit: 429,
      no_capacity: 503,
      plan_required: 403,
      page_unreachable: 422,
      profile_in_use: 409,
    } as const;
    for (const [code, status] of Object.entries(expected)) {
      assert.equal(ERRORS[code as keyof typeof expected].status, status, code);
    }
  });
});

describe('errorSchema', () => {
  it('enumerates every code and requires code and message', () => {
    const schema = errorSchema();
    const property = (name: string) => schema.properties?.[name] as JsonSchema | undefined;
    assert.deepEqual(schema.required, ['code', 'message']);
    assert.deepEqual(property('code')?.enum, [...ERROR_CODES]);
    assert.equal(property('message')?.type, 'string');
    assert.equal(property('details')?.type, 'object');
    assert.equal(schema.additionalProperties, false);
  });

  it('is plain JSON', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(errorSchema())), errorSchema());
  });
});

function isDetailsSchema(schema: JsonSchema): boolean {
  if (schema.oneOf)
    return schema.oneOf.length > 0 && schema.oneOf.every((s) => typeof s === 'object' && isDetailsSchema(s));
  if (schema.type !== 'object' || schema.additionalProperties !== false) return false;
  const names = Object.keys(schema.properties ?? {});
  return (schema.required ?? []).every((r) => names.includes(r));
}
