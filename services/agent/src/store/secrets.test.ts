// Secrets, runs' grants and intents against real Postgres: what is stored is
// sealed, a workspace sees only its own, an intent is spent once however many
// redeem it at the same time, and a deletion reaches a run already going.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type ApiError, isApiError } from '@wap/errors';
import type { FreshDatabase } from '@wap/testkit';
import { localKek } from '../domain/envelope.js';
import { freshDatabase } from '../test-support.js';
import { type AgentDatabase, openAgentDatabase } from './database.js';
import { GrantStore, type NewGrants } from './grants.js';
import { SecretIntents } from './intents.js';
import { RunStore } from './runs.js';
import { SecretStore } from './secrets.js';

let database: FreshDatabase;
let db: AgentDatabase;
let secrets: SecretStore;
let intents: SecretIntents;
let grants: GrantStore;
let runs: RunStore;
const ws = randomUUID();
const PASSWORD = 'lovelace-1815-analytical';
const CARD = '4242424242424242';

before(async () => {
  database = await freshDatabase();
  db = openAgentDatabase(database.url);
  secrets = new SecretStore(db, localKek('a'.repeat(40)));
  intents = new SecretIntents(db, secrets);
  grants = new GrantStore(db);
  runs = new RunStore(db);
});

after(async () => {
  await db.$disconnect();
  await database.drop();
});

const login = (handle: string, workspace = ws, domains = ['shop.example']) =>
  secrets.create(workspace, {
    handle,
    domains,
    value: { kind: 'login', username: 'ada', password: PASSWORD },
  });

/** A run of `workspace` granted `handles` as a submit grants them. */
async function runWith(handles: string[], workspace = ws) {
  const id = randomUUID();
  const named = await secrets.byHandles(workspace, handles);
  const g: NewGrants = {
    secrets: named.map((s) => ({ handle: s.handle, id: s.id })),
    integrations: [],
    purchases: { spendCap: 5000, perPurchaseLimit: null, currency: 'EUR', merchants: [] },
  };
  await runs.submit(
    id,
    {
      workspaceId: workspace,
      requestId: randomUUID(),
      task: 'buy it',
      startUrl: undefined,
      profileId: undefined,
      outputSchema: undefined,
      model: 'scripted',
      maxCredits: 10,
      maxSteps: 5,
    },
    [],
    (tx) => grants.write(tx, id, g),
  );
  return id;
}

const refusedWith = async (p: Promise<unknown>, code: string, details?: Record<string, unknown>) => {
  const err = await p.then(
    () => assert.fail(`expected ${code}`),
    (e: unknown) => e,
  );
  assert.ok(isApiError(err), String(err));
  assert.equal((err as ApiError).code, code);
  if (details) assert.deepEqual((err as ApiError).details, details);
};

describe('secrets', () => {
  test('stored sealed: no column holds the value, and listing answers no value', async () => {
    const created = await secrets.create(ws, {
      handle: 'visa',
      domains: ['shop.example'],
      value: { kind: 'card', number: CARD, expMonth: 12, expYear: 2030, holder: 'Ada Lovelace' },
    });
    assert.equal(created?.last4, '4242');
    const [raw] = await db.$queryRaw<Record<string, unknown>[]>`SELECT * FROM secrets WHERE id = ${created?.id}::uuid`;
    const text = JSON.stringify(raw, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));
    assert.ok(!text.includes(CARD) && !text.includes('Ada Lovelace'), 'nothing of the value in the row');
    const listed = await secrets.list(ws);
    assert.deepEqual(Object.keys(listed[0] ?? {}).sort(), [
      'createdAt',
      'domains',
      'handle',
      'id',
      'kind',
      'last4',
      'workspaceId',
    ]);
  });

  test('a handle is the workspace’s own: taken twice is refused, another workspace may use it', async () => {
    assert.ok(await login('shop'));
    assert.equal(await login('shop'), undefined);
    const other = randomUUID();
    assert.ok(await login('shop', other));
    assert.deepEqual(
      (await secrets.list(other)).map((s) => s.handle),
      ['shop'],
    );
    const mine = (await secrets.list(ws)).find((s) => s.handle === 'shop');
    assert.equal(await secrets.delete(other, mine?.id ?? ''), false, 'another workspace cannot delete it');
    assert.ok(await secrets.get(ws, mine?.id ?? ''));
  });

  test('without a key nothing is stored, and listing still answers', async () => {
    const keyless = new SecretStore(db, undefined);
    await refusedWith(
      keyless.create(ws, { handle: 'x', domains: ['a.example'], value: { kind: 'env', value: 'v' } }),
      'capability_unavailable',
    );
    assert.ok((await keyless.list(ws)).length > 0);
  });
});

describe('intents', () => {
  test('an intent is redeemed once for the value; a second redeem is secret_intent_spent', async () => {
    await login('one');
    const run = await runWith(['one']);
    const intent = await intents.create({ runId: run, handle: 'one', host: 'pay.shop.example' });
    assert.equal(intent.kind, 'login');
    const b = { runId: run, handle: 'one', host: 'pay.shop.example' };
    assert.deepEqual(await intents.redeem(intent.id, b), { kind: 'login', username: 'ada', password: PASSWORD });
    await refusedWith(intents.redeem(intent.id, b), 'secret_intent_spent', { handle: 'one' });
  });

  test('redeemed at the same moment by many, one gets the value', async () => {
    await login('race');
    const run = await runWith(['race']);
    const b = { runId: run, handle: 'race', host: 'shop.example' };
    const intent = await intents.create(b);
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => intents.redeem(intent.id, b)));
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
    for (const o of outcomes.filter((o) => o.status === 'rejected'))
      assert.equal((o as PromiseRejectedResult).reason.code, 'secret_intent_spent');
  });

  test('an intent is bound to its run, handle and host', async () => {
    await login('bound');
    await login('other-handle');
    const run = await runWith(['bound', 'other-handle']);
    const otherRun = await runWith(['bound']);
    const b = { runId: run, handle: 'bound', host: 'shop.example' };
    const intent = await intents.create(b);
    const invalid = { handle: 'bound', reason: 'binding' };
    await refusedWith(intents.redeem(intent.id, { ...b, runId: otherRun }), 'secret_intent_invalid', invalid);
    await refusedWith(intents.redeem(intent.id, { ...b, host: 'www.shop.example' }), 'secret_intent_invalid', invalid);
    await refusedWith(intents.redeem(intent.id, { ...b, handle: 'other-handle' }), 'secret_intent_invalid', {
      handle: 'other-handle',
      reason: 'binding',
    });
    await refusedWith(intents.redeem('si_made_up', b), 'secret_intent_invalid', { handle: 'bound', reason: 'unknown' });
    // The binding held: the right caller still gets it.
    assert.equal((await intents.redeem(intent.id, b)).kind, 'login');
  });

  test('a host outside the secret’s domains, a handle the run did not name, or an ended run get no intent', async () => {
    await login('narrow');
    await login('not-named');
    const run = await runWith(['narrow']);
    await refusedWith(intents.create({ runId: run, handle: 'narrow', host: 'evil.example' }), 'secret_intent_invalid', {
      handle: 'narrow',
      reason: 'domain',
    });
    await refusedWith(
      intents.create({ runId: run, handle: 'not-named', host: 'shop.example' }),
      'run_secret_undeliverable',
      { handle: 'not-named', reason: 'not_granted' },
    );
    await refusedWith(
      intents.create({ runId: randomUUID(), handle: 'narrow', host: 'shop.example' }),
      'run_secret_undeliverable',
      { handle: 'narrow', reason: 'not_granted' },
    );
    await db.agentRun.update({ where: { id: run }, data: { status: 'settled', outcome: 'completed' } });
    await refusedWith(intents.create({ runId: run, handle: 'narrow', host: 'shop.example' }), 'secret_intent_invalid', {
      handle: 'narrow',
      reason: 'run_ended',
    });
  });

  test('an expired intent is refused', async () => {
    await login('slow');
    const run = await runWith(['slow']);
    const b = { runId: run, handle: 'slow', host: 'shop.example' };
    const intent = await intents.create(b);
    await db.secretIntent.update({ where: { id: intent.id }, data: { expiresAt: new Date(Date.now() - 1) } });
    await refusedWith(intents.redeem(intent.id, b), 'secret_intent_invalid', { handle: 'slow', reason: 'expired' });
  });

  test('a deleted secret is gone from a run already going: its intents, its record of use, its next fill', async () => {
    const secret = await login('gone');
    const run = await runWith(['gone']);
    const b = { runId: run, handle: 'gone', host: 'shop.example' };
    const used = await intents.create(b);
    await intents.redeem(used.id, b);
    const pending = await intents.create(b);
    assert.ok(await secrets.delete(ws, secret?.id ?? ''));
    assert.equal(await db.secretIntent.count({ where: { runId: run } }), 0, 'the record of its use went with it');
    assert.equal(await db.runSecret.count({ where: { runId: run } }), 0);
    await refusedWith(intents.redeem(pending.id, b), 'run_secret_undeliverable', { handle: 'gone', reason: 'deleted' });
    await refusedWith(intents.create(b), 'run_secret_undeliverable', { handle: 'gone', reason: 'deleted' });
    // A new secret under the same handle is not the run's: it named the one that was.
    await login('gone');
    await refusedWith(intents.create(b), 'run_secret_undeliverable', { handle: 'gone', reason: 'deleted' });
    const g = await grants.forRun(run);
    assert.deepEqual(g.secrets, [{ handle: 'gone', kind: '', last4: null, deleted: true }]);
    assert.deepEqual(g.purchases, { spendCap: 5000, perPurchaseLimit: null, currency: 'EUR', merchants: [] });
  });

  test('an answer that shows a granted secret is caught by handle, never by value', async () => {
    await login('shown');
    const run = await runWith(['shown']);
    assert.equal(await secrets.revealedIn(run, `the password is ${PASSWORD}`), 'shown');
    assert.equal(await secrets.revealedIn(run, 'nothing to see'), undefined);
    assert.equal(await secrets.revealedIn(randomUUID(), PASSWORD), undefined, 'only the run’s own secrets');
  });
});
