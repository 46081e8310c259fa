// What a run hands back, against real Postgres: records in order, none that
// is not an object or shows a secret's value; an answer checked against the
// caller's output schema (a misfit told to the model), and the run ended by
// a finish, completed with its answer or failed with the model's reason.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type SystemsFixture, startTestRun, systemsFixture } from '../../test-support.js';
import { Stop } from './context.js';
import { OutputSystem } from './output.js';

const PASSWORD = 'pw-Noether-1882';
const workspaceId = randomUUID();
let fx: SystemsFixture;
let shop = '';

before(async () => {
  fx = await systemsFixture();
  const login = await fx.stores.secrets.create(workspaceId, {
    handle: 'shop',
    domains: ['shop.example'],
    value: { kind: 'login', username: 'emmy', password: PASSWORD },
  });
  shop = login?.id ?? '';
});

after(() => fx.close());

/** A run granted the login `shop`, answering in `outputSchema` when given, with its output. */
async function outputRun(outputSchema?: unknown) {
  const run = await startTestRun(fx.stores, workspaceId, {
    run: { outputSchema },
    grants: { secrets: [{ handle: 'shop', id: shop }], integrations: [], purchases: undefined },
  });
  return { run, output: new OutputSystem(run) };
}

const PRICE = {
  type: 'object',
  properties: { price: { type: 'number' }, note: { type: 'string' } },
  required: ['price'],
  additionalProperties: false,
};

describe('OutputSystem', () => {
  test('appends records in order; refuses one that is no object or that shows a secret', async () => {
    const { run, output } = await outputRun();
    const results: string[] = [];
    assert.equal(await output.record({ action: 'record', json: '{"n":1}' }, results), 'ok');
    assert.equal(await output.record({ action: 'record', json: '"just text"' }, results), 'failed');
    assert.equal(await output.record({ action: 'record', json: `{"pw":"${PASSWORD}"}` }, results), 'failed');
    assert.equal(await output.record({ action: 'record', json: '{"n":2}' }, results), 'ok');
    assert.deepEqual(results, [
      'record: saved as #1',
      'record: not saved, json must be a JSON object',
      'record: refused, it would show the value of the secret shop; leave secret values out',
      'record: saved as #2',
    ]);
    const records = await fx.stores.store.records(run.row.id, 0n, 10);
    assert.deepEqual(
      records.map((r) => r.data),
      [{ n: 1 }, { n: 2 }],
    );
  });

  test("a finish's answer must fit the output schema; one that fits completes the run with it", async () => {
    const { run, output } = await outputRun(PRICE);
    const results: string[] = [];
    assert.equal(
      await output.finish({ action: 'finish', success: true, answer: '{"price":"cheap"}' }, results),
      'failed',
    );
    assert.deepEqual(results, ['finish: refused, the answer does not fit the output schema']);
    assert.match(run.memory.nudge ?? '', /^Your answer does not fit the output schema \(price: /);
    // Strict mode's nulls for optional properties are dropped before the check.
    await assert.rejects(
      output.finish({ action: 'finish', success: true, answer: '{"price":12.5,"note":null}' }, []),
      Stop,
    );
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.status, row?.outcome, row?.answer], ['settled', 'completed', { price: 12.5 }]);
  });

  test("an answer that shows a secret is refused; a failure ends the run with the model's reason", async () => {
    const { run, output } = await outputRun();
    const results: string[] = [];
    assert.equal(
      await output.finish({ action: 'finish', success: true, answer: `the password is ${PASSWORD}` }, results),
      'failed',
    );
    assert.match(results[0] ?? '', /^finish: refused, it would show the value of the secret shop/);
    await assert.rejects(
      output.finish({ action: 'finish', success: false, answer: 'The shop is closed on Sundays.' }, []),
      Stop,
    );
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual(
      [row?.outcome, row?.reasonCode, row?.reasonMessage],
      ['failed', 'task_failed', 'The shop is closed on Sundays.'],
    );
  });
});
