// Integrations against a real MCP server (the official SDK's McpServer over
// HTTPS from a CA made for this test) and real Postgres: the connect check and
// each way it fails, the run-start check that notices changed tools and a
// disconnected server, and a tool call with the secret as the bearer token.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type ApiError, isApiError } from '@wap/errors';
import { AllowList } from '@wap/netguard';
import type { FreshDatabase } from '@wap/testkit';
import { type FakeMcp, makeTestTls, startFakeMcp, type TestTls } from '@wap/testsite';
import { localKek } from '../domain/envelope.js';
import { type AgentDatabase, openAgentDatabase } from '../store/database.js';
import { GrantStore } from '../store/grants.js';
import { IntegrationStore } from '../store/integrations.js';
import { RunStore } from '../store/runs.js';
import { SecretStore } from '../store/secrets.js';
import { freshDatabase } from '../test-support.js';
import { Integrations } from './integrations.js';
import { McpDialer } from './mcp.js';

const TOKEN = 'mcp-token-5f1c2e9a7b';
const loopback = AllowList.parse('127.0.0.0/8');

let database: FreshDatabase;
let db: AgentDatabase;
let tls: TestTls;
let server: FakeMcp;
let secrets: SecretStore;
let store: IntegrationStore;
let grants: GrantStore;
const dialers: McpDialer[] = [];
let integrations: Integrations;
const ws = randomUUID();

const dialer = (options: { allow?: AllowList; ca?: boolean } = {}) => {
  const d = new McpDialer({
    allow: options.allow ?? loopback,
    extraCa: options.ca === false ? [] : [tls.ca],
    timeoutMs: 5_000,
  });
  dialers.push(d);
  return d;
};
const withDialer = (d: McpDialer, allow = loopback) => new Integrations(store, secrets, grants, d, allow);

before(async () => {
  database = await freshDatabase();
  db = openAgentDatabase(database.url);
  tls = makeTestTls();
  server = await startFakeMcp({
    tls,
    token: TOKEN,
    tools: [
      { name: 'lookup_order', description: 'Finds an order by its number.' },
      { name: 'refund', description: 'Refunds an order.', reply: (a) => `refunded ${a.text}` },
    ],
  });
  secrets = new SecretStore(db, localKek('b'.repeat(40)));
  store = new IntegrationStore(db);
  grants = new GrantStore(db);
  integrations = withDialer(dialer());
  await secrets.create(ws, {
    handle: 'mcp',
    domains: ['127.0.0.1', 'localhost'],
    value: { kind: 'env', value: TOKEN },
  });
  await secrets.create(ws, { handle: 'wrong', domains: ['127.0.0.1'], value: { kind: 'env', value: 'not-the-token' } });
  await secrets.create(ws, { handle: 'elsewhere', domains: ['example.com'], value: { kind: 'env', value: TOKEN } });
  await secrets.create(ws, {
    handle: 'a-login',
    domains: ['127.0.0.1'],
    value: { kind: 'login', username: 'u', password: TOKEN },
  });
});

after(async () => {
  await Promise.all(dialers.map((d) => d.close()));
  await server.close();
  await db.$disconnect();
  await database.drop();
});

const refusal = async (p: Promise<unknown>): Promise<ApiError> => {
  const err = await p.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(isApiError(err), String(err));
  return err as ApiError;
};

const checkFailed = async (p: Promise<unknown>, reason: string) => {
  const err = await refusal(p);
  assert.equal(err.code, 'integration_check_failed');
  assert.equal(err.details?.reason, reason);
  assert.ok(!JSON.stringify(err.details).includes(TOKEN));
};

describe('connect', () => {
  test('a server that answers initialize and tools/list with the secret as its token is stored with its tools', async () => {
    const before = server.authorizations.length;
    const row = await integrations.connect(ws, new URL(server.url), 'mcp');
    assert.equal(row.serverName, 'fake-mcp');
    assert.deepEqual(
      row.tools.map((t) => [t.name, t.description]),
      [
        ['lookup_order', 'Finds an order by its number.'],
        ['refund', 'Refunds an order.'],
      ],
    );
    assert.equal(row.tools[0]?.inputSchema.type, 'object');
    assert.ok(server.authorizations.slice(before).every((a) => a === `Bearer ${TOKEN}`));
    assert.deepEqual(
      (await store.list(ws)).map((i) => i.id),
      [row.id],
    );
    assert.deepEqual(await store.list(randomUUID()), [], 'another workspace sees none');
    // Connecting the same URL again checks it again and keeps its id.
    assert.equal((await integrations.connect(ws, new URL(server.url), 'mcp')).id, row.id);
  });

  test('not HTTPS, a rejected token, a server that is not MCP, and one that cannot be reached are told apart', async () => {
    const http = new URL(server.url.replace('https:', 'http:'));
    await checkFailed(integrations.connect(ws, http, 'mcp'), 'not_https');
    await checkFailed(integrations.connect(ws, new URL(server.url), 'wrong'), 'auth_rejected');
    await checkFailed(integrations.connect(ws, new URL(server.url.replace('/mcp', '/plain')), 'mcp'), 'not_mcp');
    await checkFailed(integrations.connect(ws, new URL(server.url.replace('/mcp', '/nowhere')), 'mcp'), 'not_mcp');
    await checkFailed(integrations.connect(ws, new URL('https://127.0.0.1:9/mcp'), 'mcp'), 'unreachable');
    assert.equal((await store.list(ws)).filter((i) => i.url !== server.url).length, 0, 'nothing failed is stored');
  });

  test('a server whose certificate no trusted CA signed is unreachable', async () => {
    await checkFailed(withDialer(dialer({ ca: false })).connect(ws, new URL(server.url), 'mcp'), 'unreachable');
  });

  test('private addresses are refused without an allow-list, by address and by a name that resolves to one', async () => {
    const guarded = withDialer(dialer({ allow: new AllowList() }), new AllowList());
    await checkFailed(guarded.connect(ws, new URL(server.url), 'mcp'), 'unreachable');
    // Checked when the socket opens, whatever the URL spelled: localhost resolves to loopback.
    const byName = new URL(server.url.replace('127.0.0.1', 'localhost'));
    await checkFailed(withDialer(dialer({ allow: new AllowList() })).connect(ws, byName, 'mcp'), 'unreachable');
    const before = server.authorizations.length;
    await checkFailed(withDialer(dialer({ allow: new AllowList() })).connect(ws, byName, 'mcp'), 'unreachable');
    assert.equal(server.authorizations.length, before, 'the server never saw the token');
    // The same name with loopback allowed passes: the guard was what refused it.
    const allowed = await integrations.connect(ws, byName, 'mcp');
    assert.ok(await store.delete(ws, allowed.id));
  });

  test('the secret must exist, be an env secret, and list the server’s host among its domains', async () => {
    for (const handle of ['missing', 'a-login', 'elsewhere']) {
      const err = await refusal(integrations.connect(ws, new URL(server.url), handle));
      assert.equal(err.code, 'bad_request', handle);
      assert.ok(!JSON.stringify(err.details).includes(TOKEN));
    }
  });
});

describe('runs', () => {
  const newRun = async (integrationIds: { id: string; toolsHash: string }[]) => {
    const id = randomUUID();
    await new RunStore(db).submit(
      id,
      {
        workspaceId: ws,
        requestId: randomUUID(),
        task: 't',
        startUrl: undefined,
        profileId: undefined,
        outputSchema: undefined,
        model: 'scripted',
        maxCredits: 1,
        maxSteps: 1,
      },
      [],
      (tx) => grants.write(tx, id, { secrets: [], integrations: integrationIds, purchases: undefined }),
    );
    return id;
  };

  test('a run calls a tool of an integration it was granted, with the secret as the token', async () => {
    const row = await integrations.connect(ws, new URL(server.url), 'mcp');
    const run = await newRun([{ id: row.id, toolsHash: row.toolsHash }]);
    const [checked] = await integrations.checkForRun(ws, run);
    assert.ok(checked && 'tools' in checked, JSON.stringify(checked));
    const result = await integrations.callTool(ws, run, row.id, 'refund', { text: 'A-1' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'refunded A-1' }]);
    assert.deepEqual(server.calls.at(-1), { name: 'refund', args: { text: 'A-1' } });
    assert.equal(server.authorizations.at(-1), `Bearer ${TOKEN}`);
    const other = await newRun([]);
    assert.equal((await refusal(integrations.callTool(ws, other, row.id, 'refund', {}))).code, 'integration_changed');
    assert.equal((await refusal(integrations.callTool(ws, run, row.id, 'delete_everything', {}))).code, 'bad_request');
  });

  test('tools changed since the connect are integration_changed at the run’s start, and noted', async () => {
    const row = await integrations.connect(ws, new URL(server.url), 'mcp');
    const run = await newRun([{ id: row.id, toolsHash: row.toolsHash }]);
    server.tools.push({ name: 'delete_account', description: 'Deletes the account.' });
    try {
      const [checked] = await integrations.checkForRun(ws, run);
      assert.ok(checked && 'error' in checked);
      assert.equal(checked.error.code, 'integration_changed');
      assert.deepEqual(checked.error.details, { integrationId: row.id, change: 'tools_changed' });
      const noted = await store.get(ws, row.id);
      assert.ok(noted?.changedAt, 'the listing shows it changed');
      assert.equal(noted?.tools.length, 2, 'the stored tools stay as they were approved');
      // Connecting again takes the tools as they are now.
      const again = await integrations.connect(ws, new URL(server.url), 'mcp');
      assert.equal(again.changedAt, null);
      assert.equal(again.tools.length, 3);
      // A run submitted before that still holds the old list: still changed for it.
      const [stale] = await integrations.checkForRun(ws, run);
      assert.ok(stale && 'error' in stale);
    } finally {
      server.tools.pop();
    }
  });

  test('a deleted integration is integration_changed (disconnected) for a run holding it; its secret stays', async () => {
    const row = await integrations.connect(ws, new URL(server.url), 'mcp');
    const run = await newRun([{ id: row.id, toolsHash: row.toolsHash }]);
    assert.ok(await store.delete(ws, row.id));
    const [checked] = await integrations.checkForRun(ws, run);
    assert.ok(checked && 'error' in checked);
    assert.deepEqual(checked.error.details, { integrationId: row.id, change: 'disconnected' });
    const err = await refusal(integrations.callTool(ws, run, row.id, 'refund', {}));
    assert.deepEqual(err.details, { integrationId: row.id, change: 'disconnected' });
    assert.ok((await secrets.list(ws)).some((s) => s.handle === 'mcp'));
  });
});
