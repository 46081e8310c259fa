// The rules RPCs against real Postgres: a set replaces the workspace's rules
// and answers their classes, a get reads them back, a workspace sees only its
// own, and a model's proposal, kept per normalised sentence, decides a
// sentence the same way for every workspace that writes it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { type ApiError, isApiError } from '@wap/errors';
import { rules } from '@wap/proto';
import type { FreshDatabase } from '@wap/testkit';
import { modelProposer } from '../clients/gate-proposer.js';
import type { ModelClient, StepRequest } from '../model/types.js';
import { type AgentDatabase, openAgentDatabase } from '../store/database.js';
import { RuleStore } from '../store/rules.js';
import { freshDatabase } from '../test-support.js';
import type { AgentRpcDeps } from './deps.js';
import { getRules } from './get-rules.js';
import { setRules } from './set-rules.js';

let database: FreshDatabase;
let db: AgentDatabase;
let store: RuleStore;

before(async () => {
  database = await freshDatabase();
  db = openAgentDatabase(database.url);
  store = new RuleStore(db);
});

after(async () => {
  await db.$disconnect();
  await database.drop();
});

/** A rules model that proposes a domain_deny for whatever domain the rule names, counting what it is asked. */
const asked: string[] = [];
const model: ModelClient = {
  name: 'rules',
  vision: false,
  step: async (request: StepRequest) => {
    const text = request.messages[0]?.text ?? '';
    asked.push(text);
    const domain = /([a-z0-9-]+\.[a-z]{2,})/.exec(text)?.[1];
    return {
      output: { gate: domain ? { kind: 'domain_deny', domains: [domain] } : null },
      usage: { inputTokens: 1, outputTokens: 1 },
      model: 'rules',
      ms: 1,
    };
  },
};

const deps = (withModel: boolean) =>
  ({
    rules: store,
    proposer: withModel ? (signal: AbortSignal) => modelProposer(model, { signal }) : undefined,
  }) as unknown as AgentRpcDeps;
const set = (workspaceId: string, sentences: string[], withModel = false) =>
  setRules(deps(withModel))(create(rules.SetRulesRequestSchema, { workspaceId, sentences }));
const get = (workspaceId: string) => getRules(deps(false))(create(rules.GetRulesRequestSchema, { workspaceId }));
const classes = (r: { rules: rules.Rule[] }) =>
  r.rules.map((x) => [x.text, x.ruleClass, x.gateJson ? JSON.parse(x.gateJson) : x.reason]);

test('a set replaces the rules and answers each class; a get reads them back; per workspace', async () => {
  const ws = randomUUID();
  assert.deepEqual((await get(ws)).rules, []);
  assert.equal((await get(ws)).updatedAt, undefined);
  const answer = await set(ws, ['Only visit example.com', '  Be polite in every message  ']);
  const [enforced, guidance] = classes(answer);
  assert.deepEqual(enforced, [
    'Only visit example.com',
    'ENFORCED',
    { kind: 'domain_allow', domains: ['example.com'] },
  ]);
  assert.equal(guidance?.[0], 'Be polite in every message');
  assert.equal(guidance?.[1], 'GUIDANCE');
  assert.ok(typeof guidance?.[2] === 'string' && guidance[2].length > 0, 'guidance says why');
  assert.deepEqual(classes(await get(ws)), classes(answer));
  assert.ok(answer.updatedAt);
  assert.deepEqual((await get(randomUUID())).rules, [], 'another workspace has none');
  await set(ws, ['Never download files']);
  assert.deepEqual(
    classes(await get(ws)),
    [['Never download files', 'ENFORCED', { kind: 'forbid', actions: ['download'] }]],
    'replaced, not added to',
  );
  await set(ws, []);
  assert.deepEqual((await get(ws)).rules, []);
});

test('without a rules model the pattern compiler alone decides; with one, its proposal is kept per sentence', async () => {
  const sentence = 'Keep out of example.net';
  const alone = classes(await set(randomUUID(), [sentence]));
  assert.equal(alone[0]?.[1], 'GUIDANCE');
  assert.equal(asked.length, 0);

  const first = classes(await set(randomUUID(), [sentence], true));
  assert.deepEqual(first, [[sentence, 'ENFORCED', { kind: 'domain_deny', domains: ['example.net'] }]]);
  const again = classes(await set(randomUUID(), ['keep OUT of example.net.'], true));
  assert.deepEqual(again[0]?.[2], { kind: 'domain_deny', domains: ['example.net'] });
  assert.equal(asked.length, 1, 'the same sentence, however written, is asked once');
  assert.equal(await db.ruleProposal.count(), 1);
});

test('empty or overlong sentences and too many rules are bad_request, and nothing is replaced', async () => {
  const ws = randomUUID();
  await set(ws, ['Never download files']);
  for (const [sentences, path] of [
    [['ok rule', '   '], 'rules.1'],
    [['x'.repeat(501)], 'rules.0'],
    [Array.from({ length: 101 }, (_, i) => `Rule ${i}`), 'rules'],
  ] as const) {
    const err = await set(ws, [...sentences]).then(
      () => assert.fail('expected bad_request'),
      (e: unknown) => e,
    );
    assert.ok(isApiError(err));
    assert.equal((err as ApiError).code, 'bad_request');
    assert.deepEqual(
      (((err as ApiError).details?.issues ?? []) as { path: string }[]).map((i) => i.path),
      [path],
    );
  }
  assert.equal((await get(ws)).rules.length, 1);
});
