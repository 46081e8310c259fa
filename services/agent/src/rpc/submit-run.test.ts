// SubmitRun against real Postgres: a submit writes its run queued and wakes a
// replica without asking the ledger for a browser (the replica that claims it
// does), a retried submit answers the same run, and a workspace with
// AGENT_MAX_QUEUED_RUNS runs waiting is refused 429 concurrency_limit (kind
// `queued_runs`) with nothing written, while another workspace and a run that
// started free a place.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { type ApiError, isApiError } from '@wap/errors';
import { agent } from '@wap/proto';
import type { FreshDatabase } from '@wap/testkit';
import { type AgentDatabase, openAgentDatabase } from '../store/database.js';
import { GrantStore } from '../store/grants.js';
import { IntegrationStore } from '../store/integrations.js';
import { RunStore } from '../store/runs.js';
import { SecretStore } from '../store/secrets.js';
import { freshDatabase } from '../test-support.js';
import type { AgentRpcDeps } from './deps.js';
import { submitRun } from './submit-run.js';

const LIMIT = 3;
let database: FreshDatabase;
let db: AgentDatabase;
let submit: (workspaceId: string, requestId?: string) => Promise<agent.SubmitRunResponse>;
const woken: string[] = [];

before(async () => {
  database = await freshDatabase();
  db = openAgentDatabase(database.url);
  const deps = {
    config: {
      AGENT_MAX_QUEUED_RUNS: LIMIT,
      AGENT_DEFAULT_MODEL: 'scripted',
      AGENT_DEFAULT_MAX_CREDITS: 100,
      AGENT_DEFAULT_MAX_STEPS: 50,
      AGENT_RUN_SECRETS_LIMIT: 10,
    },
    store: new RunStore(db),
    secrets: new SecretStore(db, undefined),
    grants: new GrantStore(db),
    integrationStore: new IntegrationStore(db),
    models: () => ['scripted'],
    wake: (id: string) => woken.push(id),
    // A submit asks the ledger nothing: any call fails the test.
    ledger: new Proxy({}, { get: (_, name) => assert.fail(`the submit called the ledger's ${String(name)}`) }),
  } as unknown as AgentRpcDeps;
  const handler = submitRun(deps);
  submit = (workspaceId, requestId = randomUUID()) =>
    handler(create(agent.SubmitRunRequestSchema, { workspaceId, requestId, task: 'Read the title' }));
});

after(async () => {
  await db.$disconnect();
  await database.drop();
});

const refusal = async (pending: Promise<unknown>): Promise<ApiError> => {
  const err = await pending.then(
    () => assert.fail('the submit was taken'),
    (e: unknown) => e,
  );
  assert.ok(isApiError(err), String(err));
  return err;
};

test('runs are queued at once up to the limit; the next is refused and not written', async () => {
  const workspace = randomUUID();
  const runs = await Promise.all(Array.from({ length: LIMIT }, () => submit(workspace)));
  assert.deepEqual(
    runs.map((r) => r.run?.status),
    Array(LIMIT).fill('queued'),
  );
  assert.deepEqual(new Set(woken.slice(-LIMIT)), new Set(runs.map((r) => r.run?.id)), 'each run woke a replica');

  const err = await refusal(submit(workspace));
  assert.equal(err.code, 'concurrency_limit');
  assert.deepEqual(err.details, { kind: 'queued_runs', limit: LIMIT, active: LIMIT });
  assert.equal(await db.agentRun.count({ where: { workspaceId: workspace } }), LIMIT, 'nothing written');

  // Another workspace's queue is its own.
  assert.equal((await submit(randomUUID())).run?.status, 'queued');

  // A run that started frees its place.
  await db.agentRun.update({ where: { id: runs[0]?.run?.id }, data: { status: 'running' } });
  assert.equal((await submit(workspace)).run?.status, 'queued');
});

test('a retried submit answers its run even when the queue is full', async () => {
  const workspace = randomUUID();
  const requestId = randomUUID();
  const first = await submit(workspace, requestId);
  for (let i = 1; i < LIMIT; i++) await submit(workspace);
  const again = await submit(workspace, requestId);
  assert.equal(again.run?.id, first.run?.id);
  assert.equal(await db.agentRun.count({ where: { workspaceId: workspace } }), LIMIT);
});
