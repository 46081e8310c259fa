// What POST /v1/agent takes and refuses, through the fleet (docs/agent.md, docs/secrets.md):
// a purchase currency that is no ISO 4217 code and an output schema no model can answer in
// are 400 bad_request naming the field, before anything is held: no run, no credit.
// The runs are the browsers fleet's, its scripted model finishing at once.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { availableCredits, call, type Reply } from './api.js';
import { fleet, sharedFleet } from './shared-fleet.js';

/** The paths a bad_request's issues name. */
function refusedAt(reply: Reply): string[] {
  assert.equal(reply.status, 400, JSON.stringify(reply.body));
  assert.equal(reply.body.code, 'bad_request', JSON.stringify(reply.body));
  return ((reply.body.details as { issues?: { path: string }[] } | undefined)?.issues ?? []).map((i) => i.path);
}

/** An object schema `levels` objects deep, a string inside the last. */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { inner: schema }, required: ['inner'] };
  return schema;
}

describe('POST /v1/agent: what a submit refuses before it holds anything', () => {
  let key: string;
  const submit = (body: Record<string, unknown>) => call(fleet.gatewayUrl, 'POST', '/v1/agent', { key, body });

  before(async () => {
    await sharedFleet('browsers');
    ({ apiKey: key } = await fleet.workspace('pro'));
  });

  /** Nothing was held: no run was written, no credit moved. */
  async function nothingHeld(credits: number) {
    const runs = await call<{ runs: unknown[] }>(fleet.gatewayUrl, 'GET', '/v1/agent', { key });
    assert.deepEqual(runs.body.runs, []);
    assert.equal(await availableCredits(fleet.gatewayUrl, key), credits);
  }

  test('a purchase currency must be an ISO 4217 code', async () => {
    const credits = await availableCredits(fleet.gatewayUrl, key);
    for (const currency of ['ZZZ', 'XXX', 'eur'])
      assert.deepEqual(
        refusedAt(await submit({ task: 'Buy a lamp', purchases: { spendCap: 1_000, currency } })),
        ['purchases.currency'],
        currency,
      );
    await nothingHeld(credits);
  });

  test('an output schema must be one a model can answer in: no $ref recursion, 10 levels, 200 properties', async () => {
    const credits = await availableCredits(fleet.gatewayUrl, key);
    const properties = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`p${i}`, { type: 'string' }]));
    for (const outputSchema of [
      { type: 'object', properties: { next: { $ref: '#' } } },
      { $ref: '#' },
      { $defs: { a: { type: 'array', items: { $ref: '#/$defs/a' } } }, $ref: '#/$defs/a' },
      nested(11),
      { type: 'object', properties },
    ])
      assert.deepEqual(
        refusedAt(await submit({ task: 'Answer in the schema', outputSchema })),
        ['outputSchema'],
        JSON.stringify(outputSchema).slice(0, 200),
      );
    await nothingHeld(credits);
  });

  test('at the limits, a currency and a schema are taken', async () => {
    const taken = await submit({
      task: 'Buy a lamp within the limits',
      purchases: { spendCap: 1_000, currency: 'EUR' },
      outputSchema: nested(10),
    });
    assert.equal(taken.status, 202, JSON.stringify(taken.body));
  });
});
