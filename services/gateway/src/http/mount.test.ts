// The REST mount of registry rows on a real gateway (its composition root, a fresh database,
// NATS, HTTP) with rows made for the test: a row's alias route, and the idempotency key as
// Firecrawl's clients send it (`x-idempotency-key`) beside the one we name (`Idempotency-Key`).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '@wap/config';
import type { NatsLink } from '@wap/events';
import { infra, quietLog, testNats } from '@wap/testkit';
import { z } from 'zod';
import { env } from '../config.js';
import { openGateway } from '../gateway.js';
import { mcpTools } from '../mcp/tools.js';
import { type Capability, capability } from '../registry/types.js';
import { IdentityStore } from '../store/identity.js';
import { freshDatabase, type TestDatabase } from '../test-support.js';

const log = quietLog('gateway-test');

let database: TestDatabase;
let link: NatsLink;
let gateway: ReturnType<typeof openGateway>;
let url: string;
let apiKey: string;
/** How many times each test row's handler ran. */
const ran = { create: 0, stop: 0 };

const base = {
  tag: 'Usage' as const,
  summary: 'test row',
  backend: 'billing-ledger' as const,
  bills: [],
  errors: [],
  request: {},
};

const rows: Capability[] = [
  capability({
    ...base,
    name: 'test.create',
    method: 'post',
    path: '/v1/things',
    mcpTool: 'service_test_create',
    request: { body: z.strictObject({ name: z.string() }) },
    response: z.object({ id: z.string(), name: z.string() }),
    handler: async (ctx, { body }) => {
      ran.create++;
      return { id: ctx.operationId, name: body.name };
    },
  }),
  capability({
    ...base,
    name: 'test.get',
    method: 'get',
    path: '/v1/things/{id}',
    mcpTool: 'service_test_get',
    request: { params: z.strictObject({ id: z.string() }) },
    response: z.object({ id: z.string() }),
    handler: async (_ctx, { params }) => ({ id: params.id }),
  }),
  capability({
    ...base,
    name: 'test.stop',
    method: 'post',
    path: '/v1/things/{id}/stop',
    mcpTool: 'service_test_stop',
    alsoAt: [{ method: 'delete', path: '/v1/things/{id}', description: 'Another client’s form of the stop.' }],
    request: { params: z.strictObject({ id: z.string().max(5) }) },
    response: z.object({ stopped: z.string() }),
    handler: async (_ctx, { params }) => {
      ran.stop++;
      return { stopped: params.id };
    },
  }),
];

before(async () => {
  database = await freshDatabase(4);
  link = await testNats('mount-test', log);
  const identity = new IdentityStore(database.db);
  const ws = await identity.createWorkspace('mount-test', 'pro');
  apiKey = (await identity.createApiKey(ws.id, 'test')).credential;
  const config = loadConfig(env, {
    DATABASE_URL: database.url,
    NATS_URL: infra().natsUrl,
    NATS_NAMESPACE: `mount_${randomUUID().slice(0, 8)}_`,
    HTTP_PORT: '0',
    STRICT_CONTRACTS: 'true',
  });
  gateway = openGateway(config, database.db, link, log, { registry: () => rows });
  url = (await gateway.start()).url;
});

after(async () => {
  await gateway?.stop();
  await link?.drain();
  await database?.close();
});

const send = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
  fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** A refusal as the Error object; the paths its issues name. */
async function refused(res: Response, status: number, code: string): Promise<string[]> {
  const body = (await res.json()) as { code: string; message: string; details?: { issues?: { path: string }[] } };
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(body.code, code);
  assert.equal(typeof body.message, 'string');
  return (body.details?.issues ?? []).map((i) => i.path);
}

describe('an alias route', () => {
  test('runs its row: the same handler, input checks and answer', async () => {
    const before = ran.stop;
    const viaRow = await send('POST', '/v1/things/a1/stop');
    const viaAlias = await send('DELETE', '/v1/things/a1');
    assert.equal(viaAlias.status, 200);
    assert.deepEqual(await viaAlias.json(), await viaRow.json());
    assert.equal(ran.stop - before, 2, 'both ran the stop');
    assert.deepEqual(await refused(await send('DELETE', '/v1/things/toolong'), 400, 'bad_request'), ['path.id']);
    assert.equal((await send('GET', '/v1/things/a1')).status, 200, 'the path keeps its own GET');
  });

  test('is a method of its path for 405: Allow names it', async () => {
    const res = await send('PUT', '/v1/things/a1', {}, {});
    await refused(res, 405, 'method_not_allowed');
    assert.equal(res.headers.get('allow'), 'GET, DELETE, HEAD');
  });

  test('adds no MCP tool', () => {
    assert.deepEqual(
      mcpTools(rows).map((t) => t.definition.name),
      ['service_test_create', 'service_test_get', 'service_test_stop'],
    );
  });
});

describe('x-idempotency-key', () => {
  const create = (headers: Record<string, string>, name = 'n') => send('POST', '/v1/things', headers, { name });

  test('is read as Idempotency-Key when that is absent: a retry runs the work once', async () => {
    const before = ran.create;
    const key = `fc-${randomUUID()}`;
    const first = await create({ 'x-idempotency-key': key });
    const again = await create({ 'x-idempotency-key': key });
    assert.equal(first.status, 200);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    const body = (await first.json()) as { id: string };
    assert.deepEqual(await again.json(), body);
    assert.equal(ran.create - before, 1);
    // It is the same key: sent as Idempotency-Key, or as both, the retry is still the first answer.
    const forms: Record<string, string>[] = [
      { 'idempotency-key': key },
      { 'idempotency-key': key, 'x-idempotency-key': key },
    ];
    for (const headers of forms) {
      const retried = await create(headers);
      assert.deepEqual(await retried.json(), body, JSON.stringify(headers));
    }
    assert.equal(ran.create - before, 1);
    await refused(await create({ 'x-idempotency-key': key }, 'other'), 400, 'bad_request');
  });

  test('both headers with different keys are refused, naming the header, before any work', async () => {
    const before = ran.create;
    const both = { 'idempotency-key': `a-${randomUUID()}`, 'x-idempotency-key': `b-${randomUUID()}` };
    assert.deepEqual(await refused(await create(both), 400, 'bad_request'), ['header.X-Idempotency-Key']);
    const invalid = await create({ 'x-idempotency-key': 'two words' });
    assert.deepEqual(await refused(invalid, 400, 'bad_request'), ['header.X-Idempotency-Key']);
    assert.equal(ran.create, before, 'nothing ran');
  });

  test('off POST both headers are ignored, as a key always was', async () => {
    const res = await send('GET', '/v1/things/a1', { 'idempotency-key': 'a', 'x-idempotency-key': 'b' });
    assert.equal(res.status, 200);
  });
});
