import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '@wap/config';
import { ApiError } from '@wap/errors';
import type { NatsLink } from '@wap/events';
import { infra, quietLog, TEST_SERVICE_TOKEN, testNats } from '@wap/testkit';
import pg from 'pg';
import { z } from 'zod';
import { env } from '../config.js';
import { openGateway } from '../gateway.js';
import { IdentityStore } from '../oauth/identity.js';
import { type Capability, capability } from '../registry/types.js';
import type { GatewayDatabase } from '../store/database.js';
import { freshDatabase, type TestDatabase } from '../test-support.js';

// The invoke path through the REST surface, on a real gateway database, NATS and HTTP server,
// with rows made for the test: one of each answer kind and each way to break a contract.
const log = quietLog('gateway-test');

let database: TestDatabase;
let db: GatewayDatabase;
let link: NatsLink;
const gateways: ReturnType<typeof openGateway>[] = [];
let apiKey: string;
let handled = 0;

const item = z.object({ n: z.number().int() });
const base = {
  tag: 'Usage' as const,
  summary: 'test row',
  backend: 'billing-ledger' as const,
  bills: [],
  errors: [],
  mcpTool: 'service_test_row' as const,
  request: {},
};

const rows: Capability[] = [
  capability({
    ...base,
    name: 'test.create',
    method: 'post',
    path: '/v1/test/items',
    request: { body: z.strictObject({ name: z.string() }) },
    response: z.object({ id: z.string(), name: z.string() }),
    answer: { kind: 'json', status: 201 },
    handler: async (ctx, { body }) => {
      handled++;
      return { id: ctx.operationId, name: body.name };
    },
  }),
  capability({
    ...base,
    name: 'test.lines',
    method: 'get',
    path: '/v1/test/lines',
    response: item,
    answer: { kind: 'ndjson' },
    handler: async () =>
      (async function* () {
        for (let n = 1; n <= 3; n++) yield { n };
      })(),
  }),
  capability({
    ...base,
    name: 'test.events',
    method: 'get',
    path: '/v1/test/events',
    response: item,
    answer: { kind: 'sse' },
    handler: async () =>
      (async function* () {
        yield { n: 1 };
        yield { n: 2 };
      })(),
  }),
  capability({
    ...base,
    name: 'test.elsewhere',
    method: 'get',
    path: '/v1/test/elsewhere',
    response: z.object({}),
    answer: { kind: 'redirect', status: 302 },
    handler: async () => ({ location: 'https://browsers.example/x?ticket=t' }),
  }),
  capability({
    ...base,
    name: 'test.undeclared',
    method: 'get',
    path: '/v1/test/undeclared',
    response: z.object({}),
    handler: async () => {
      throw new ApiError('page_unreachable', { url: 'https://example.com/', reason: 'dns' });
    },
  }),
  capability({
    ...base,
    name: 'test.declared',
    method: 'get',
    path: '/v1/test/declared',
    response: z.object({}),
    errors: ['page_unreachable'],
    handler: async () => {
      throw new ApiError('page_unreachable', { url: 'https://example.com/', reason: 'dns' });
    },
  }),
  capability({
    ...base,
    name: 'test.broken',
    method: 'get',
    path: '/v1/test/broken',
    response: item,
    handler: async () => ({ n: 'one' }) as never,
  }),
  capability({
    ...base,
    name: 'test.databaseAway',
    method: 'get',
    path: '/v1/test/database-away',
    response: z.object({}),
    // A query on a Postgres that is not there, as during a restart or a failover.
    handler: async () => {
      const pool = new pg.Pool({ connectionString: 'postgresql://wap:pw@127.0.0.1:1/away' });
      try {
        await pool.query('SELECT 1');
        return {};
      } finally {
        await pool.end();
      }
    },
  }),
  capability({
    ...base,
    name: 'test.mcpOnly',
    method: 'get',
    path: '/v1/test/mcp-only',
    response: z.object({}),
    surfaces: ['mcp'],
    handler: async () => ({}),
  }),
];

/** A gateway of the test rows, wired by the same composition root as the service, on a free port. */
async function gateway(strictContracts: boolean): Promise<string> {
  const config = loadConfig(env, {
    DATABASE_URL: database.url,
    NATS_URL: infra().natsUrl,
    SERVICE_TOKEN: TEST_SERVICE_TOKEN,
    NATS_NAMESPACE: `invoke_${randomUUID().slice(0, 8)}_`,
    HTTP_PORT: '0',
    MAX_BODY_BYTES: '10000',
    STRICT_CONTRACTS: String(strictContracts),
  });
  const opened = openGateway(config, db, link, log, { registry: () => rows });
  gateways.push(opened);
  return (await opened.start()).url;
}

before(async () => {
  database = await freshDatabase();
  db = database.db;
  link = await testNats('invoke-test', log);
  const identity = new IdentityStore(db);
  const ws = await identity.createWorkspace('invoke-test', 'pro');
  apiKey = (await identity.createApiKey(ws.id, 'test')).credential;
});

after(async () => {
  for (const g of gateways) await g.stop();
  await link.drain();
  await database.close();
});

const get = (url: string, init: RequestInit = {}) =>
  fetch(url, { ...init, redirect: 'manual', headers: { authorization: `Bearer ${apiKey}`, ...init.headers } });

describe('the invoke path through REST', () => {
  test('each answer kind: JSON with its status, NDJSON lines, server-sent events, a redirect', async () => {
    const url = await gateway(true);
    const created = await get(`${url}/v1/test/items`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'a' }),
    });
    assert.equal(created.status, 201);
    assert.equal(((await created.json()) as { name: string }).name, 'a');
    assert.match(created.headers.get('ratelimit') ?? '', /"workspace";r=\d+;t=\d+/, 'rate limited like any call');

    const lines = await get(`${url}/v1/test/lines`);
    assert.equal(lines.status, 200);
    assert.match(lines.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    assert.equal(await lines.text(), '{"n":1}\n{"n":2}\n{"n":3}\n');

    const events = await get(`${url}/v1/test/events`);
    assert.match(events.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(await events.text(), 'data: {"n":1}\n\ndata: {"n":2}\n\n');

    const moved = await get(`${url}/v1/test/elsewhere`);
    assert.equal(moved.status, 302);
    assert.equal(moved.headers.get('location'), 'https://browsers.example/x?ticket=t');
    assert.equal(moved.headers.get('cache-control'), 'no-store');
  });

  test('a row not served on REST has no route there', async () => {
    const url = await gateway(true);
    assert.equal((await get(`${url}/v1/test/mcp-only`)).status, 404);
  });

  test('an Idempotency-Key runs the handler once and answers the first answer with its status', async () => {
    const url = await gateway(true);
    const before = handled;
    const post = (name: string) =>
      get(`${url}/v1/test/items`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `k-${before}` },
        body: JSON.stringify({ name }),
      });
    const first = await post('b');
    const again = await post('b');
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    const firstBody = (await first.json()) as { id: string };
    assert.deepEqual(await again.json(), firstBody);
    assert.match(firstBody.id, /^idem_[0-9a-f]{40}$/, 'the operation id derives from the key');
    assert.equal(handled - before, 1);
    const other = await post('c');
    assert.equal(other.status, 400, 'the same key with another body');
  });

  test('under strict contracts, an undeclared error code or a broken answer is a 500 naming the row', async () => {
    const url = await gateway(true);
    for (const path of ['/v1/test/undeclared', '/v1/test/broken']) {
      const r = await get(`${url}${path}`);
      assert.equal(r.status, 500, path);
      const body = (await r.json()) as { code: string; details: { contract: string } };
      assert.equal(body.code, 'internal');
      assert.match(body.details.contract, /^test\./);
    }
    const declared = await get(`${url}/v1/test/declared`);
    assert.equal(declared.status, 422, 'a declared code passes');
  });

  test('a database away is 503 no_capacity with a Retry-After on any route, never a 500', async () => {
    const url = await gateway(true);
    const r = await get(`${url}/v1/test/database-away`);
    assert.equal(r.status, 503);
    assert.equal(r.headers.get('retry-after'), '2');
    assert.equal(((await r.json()) as { code: string }).code, 'no_capacity');
  });

  test('in production the same breaches are only logged: the caller gets the answer', async () => {
    const url = await gateway(false);
    assert.equal((await get(`${url}/v1/test/undeclared`)).status, 422);
    assert.deepEqual(await (await get(`${url}/v1/test/broken`)).json(), { n: 'one' });
  });
});
