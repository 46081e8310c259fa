import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validate } from '@readme/openapi-parser';
import { buildRegistry } from './index.js';
import { openApiDocument } from './openapi.js';

const everything = buildRegistry({ configured: () => true });

test('the document is valid OpenAPI 3.1', async () => {
  const doc = openApiDocument(everything, 'http://127.0.0.1:8080');
  const result = await validate(structuredClone(doc) as never);
  assert.ok(result.valid, JSON.stringify(result, null, 2));
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '1.0.0');
  assert.deepEqual(doc.components.securitySchemes.ApiKeyAuth, {
    type: 'http',
    scheme: 'bearer',
    description: doc.components.securitySchemes.ApiKeyAuth.description,
  });
  assert.deepEqual(doc.security, [{ ApiKeyAuth: [] }]);
});

type Op = { operationId: string; 'x-mcp-tool'?: string; 'x-alias-of'?: string };
const operationsOf = (doc: ReturnType<typeof openApiDocument>) =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, op: op as Op })),
  );

test('its paths are exactly the registry rows with their MCP tool names, and their untranslated aliases without one', () => {
  const found = operationsOf(openApiDocument(everything, 'http://x'));
  const operations = found.map(({ route, op }) => `${route} ${op['x-mcp-tool'] ?? `alias of ${op['x-alias-of']}`}`);
  const expected = everything.flatMap((r) => [
    `${r.method.toUpperCase()} ${r.path} ${r.mcpTool}`,
    // Firecrawl v2's routes take and answer Firecrawl's shapes, not the row's: not in the document.
    ...(r.alsoAt ?? [])
      .filter((a) => !a.translate)
      .map((a) => `${a.method.toUpperCase()} ${a.path} alias of ${r.name}`),
  ]);
  assert.ok(!found.some((o) => o.route.includes(' /v2/')), 'no Firecrawl v2 route');
  assert.deepEqual(operations.sort(), expected.sort());
  assert.ok(expected.includes('DELETE /v1/crawl/{id} alias of crawl.cancel'), 'Firecrawl’s cancel');
  assert.equal(new Set(found.map((o) => o.op.operationId)).size, found.length, 'operationIds are unique');
});

test('an alias is its row’s operation: the same parameters, body and answers', () => {
  const doc = openApiDocument(everything, 'http://x');
  const paths = doc.paths as Record<string, Record<string, Record<string, unknown>>>;
  const cancel = paths['/v1/crawl/{id}/cancel']?.post;
  const alias = paths['/v1/crawl/{id}']?.delete;
  assert.ok(cancel && alias);
  assert.equal(alias.operationId, 'crawl.cancel.delete');
  assert.match(String(alias.description), /Firecrawl-compatible form of `POST \/v1\/crawl\/\{id\}\/cancel`/);
  for (const field of ['summary', 'tags', 'x-bills', 'parameters', 'requestBody', 'responses'])
    assert.deepEqual(alias[field], cancel[field], field);
  assert.deepEqual(alias['x-bills'], [], 'free, as the cancel');
});

/** The closed set, copied from the published list (docs/errors.md) by hand: the document is held to that list, not to itself. */
const SPEC_CODES = [
  ...['unauthorized', 'bad_request', 'not_found', 'method_not_allowed', 'tenant_scope', 'internal'],
  'deadline_exceeded',
  ...['cap_exceeded', 'no_capacity', 'quota_exceeded', 'concurrency_limit', 'plan_required'],
  ...['capability_unavailable', 'decode_unavailable', 'exit_unavailable'],
  ...['profile_in_use', 'profile_not_found'],
  ...['page_unreachable', 'document_unrepresentable', 'page_lost', 'extraction_failed', 'answer_lost'],
  ...['search_refused', 'lab_arm_forbidden'],
  ...['integration_check_failed', 'integration_changed'],
  ...['secret_intent_invalid', 'secret_intent_spent', 'cvc_not_storable', 'run_secrets_limit'],
  ...['run_secret_undeliverable', 'secret_in_answer'],
  ...['replay_access_denied', 'replay_control_denied', 'replay_control_cross_site'],
  ...['spend_cap_required', 'card_number_in_task', 'merchant_not_allowed', 'spend_cap_exceeded'],
  ...['per_purchase_exceeded', 'no_open_purchase', 'approval_denied', 'approval_timed_out'],
  ...['provider_test_failed', 'provider_cards_open'],
];

test("the Error schema's code is the closed enum of the 45 codes of docs/errors.md", () => {
  const doc = openApiDocument(everything, 'http://x');
  const error = doc.components.schemas.Error as { properties: { code: { enum: string[] } }; required: string[] };
  assert.equal(SPEC_CODES.length, 45);
  assert.deepEqual([...error.properties.code.enum].sort(), [...SPEC_CODES].sort());
  assert.ok(error.required.includes('code') && error.required.includes('message'));
});

test('a row whose backend is not configured has no path', () => {
  const none = openApiDocument(buildRegistry({ configured: () => false }), 'http://x');
  assert.deepEqual(none.paths, {});
  const ledgerOnly = buildRegistry({ configured: (b) => b === 'billing-ledger' });
  assert.ok(ledgerOnly.every((r) => r.backend === 'billing-ledger'));
});

test('rows follow the naming rules', () => {
  for (const row of everything) {
    assert.match(row.mcpTool, /^service_[a-z]+_[a-z_]+$/, row.name);
    assert.match(row.path, /^\/v1\//, row.name);
  }
  assert.equal(new Set(everything.map((r) => r.name)).size, everything.length);
});

test('an Idempotency-Key the document allows is one the gateway accepts', () => {
  const doc = openApiDocument(everything, 'http://x');
  type Operation = { requestBody?: unknown; parameters: { name: string; schema: Record<string, unknown> }[] };
  const posts = Object.values(doc.paths).flatMap((ops) => (ops.post ? [ops.post as Operation] : []));
  const withBody = posts.filter((op) => op.requestBody);
  assert.ok(withBody.length > 0);
  for (const op of withBody) {
    const header = op.parameters.find((p) => p.name === 'Idempotency-Key');
    assert.deepEqual(header?.schema, {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]{1,255}$',
    });
    const pattern = new RegExp(header?.schema.pattern as string);
    for (const good of ['a', 'order-42:retry#1', '~'.repeat(255)]) assert.ok(pattern.test(good), good);
    for (const bad of ['', 'two words', 'caf\u00e9', 'tab\there', 'x'.repeat(256)]) assert.ok(!pattern.test(bad), bad);
  }
});

type Responses = Record<string, { content?: Record<string, unknown> }>;
const responsesOf = (path: string) =>
  ((openApiDocument(everything, 'http://x').paths[path] as { get: { responses: Responses } }).get.responses ??
    {}) as Responses;

test('a streamed answer is documented with the media type it is sent as', () => {
  assert.deepEqual(Object.keys(responsesOf('/v1/sessions/{id}/network')['200']?.content ?? {}), [
    'application/x-ndjson',
  ]);
  assert.deepEqual(Object.keys(responsesOf('/v1/sessions/{id}/live')['200']?.content ?? {}), ['text/event-stream']);
  assert.deepEqual(Object.keys(responsesOf('/v1/sessions/{id}')['200']?.content ?? {}), ['application/json']);
});

test('sessions.network documents every error status decision 0002 lists for it', () => {
  // 431 aside: the HTTP parser's answer to oversized headers, documented on every operation.
  const statuses = Object.keys(responsesOf('/v1/sessions/{id}/network')).filter((s) => s !== '200' && s !== '431');
  assert.deepEqual(statuses, ['400', '401', '402', '403', '404', '408', '422', '429', '500', '503']);
  assert.ok(responsesOf('/v1/sessions/{id}/network')['431'], 'the parser refusal is documented');
  const submit = openApiDocument(everything, 'http://x').paths['/v1/agent'] as { post: { responses: Responses } };
  assert.ok(submit.post.responses['202'], 'a run is accepted with 202, as documented');
});
