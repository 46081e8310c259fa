// A run's calls to its integrations' tools against a real MCP server (the
// official SDK's, over HTTPS from a CA made for the test) and real Postgres:
// a granted tool called and its answer read without a secret's value, what is
// refused before any call, and a server disconnected since the run began.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type FakeMcp, makeTestTls, startFakeMcp } from '@wap/testsite';
import { type SystemsFixture, startTestRun, systemsFixture } from '../../test-support.js';
import { ToolSystem } from './tools.js';

const TOKEN = 'mcp-token-7c2a9e41d0';
const PASSWORD = 'pw-Hopper-1906';
const workspaceId = randomUUID();

let fx: SystemsFixture;
let server: FakeMcp;
let shop = '';

before(async () => {
  const tls = makeTestTls();
  server = await startFakeMcp({
    tls,
    token: TOKEN,
    tools: [
      {
        name: 'lookup_order',
        description: 'Finds an order by its number.',
        // A careless server echoes what it should not: the run's own secret.
        reply: (a) => `order ${a.text}: shipped; the account password is ${PASSWORD}`,
      },
    ],
  });
  fx = await systemsFixture({ extraCa: [tls.ca] });
  await fx.stores.secrets.create(workspaceId, {
    handle: 'mcp',
    domains: ['127.0.0.1', 'localhost'],
    value: { kind: 'env', value: TOKEN },
  });
  const login = await fx.stores.secrets.create(workspaceId, {
    handle: 'shop',
    domains: ['shop.example'],
    value: { kind: 'login', username: 'grace', password: PASSWORD },
  });
  shop = login?.id ?? '';
});

after(async () => {
  await server.close();
  await fx.close();
});

/** A run granted the connected server and the login `shop`, with its tools. */
async function toolRun() {
  const integration = await fx.stores.policy.integrations.connect(workspaceId, new URL(server.url), 'mcp');
  const run = await startTestRun(fx.stores, workspaceId, {
    grants: {
      secrets: [{ handle: 'shop', id: shop }],
      integrations: [{ id: integration.id, toolsHash: integration.toolsHash }],
      purchases: undefined,
    },
  });
  return { run, integration, tools: new ToolSystem(run, fx.stores.policy.integrations) };
}

const lookup = (args: string) => ({ action: 'call_tool', tool: 'fake_mcp.lookup_order', arguments: args }) as const;

describe('ToolSystem', () => {
  test('calls a granted tool; the model reads its answer without a secret value', async () => {
    const { run, tools } = await toolRun();
    const calls = server.calls.length;
    const results: string[] = [];
    assert.equal(await tools.call(lookup('{"text":"A-17"}'), results), 'ok');
    assert.deepEqual(results, ['call_tool fake_mcp.lookup_order: answered']);
    assert.deepEqual(server.calls.slice(calls), [{ name: 'lookup_order', args: { text: 'A-17' } }]);
    assert.equal(
      run.memory.extracted,
      'fake_mcp.lookup_order answered:\norder A-17: shipped; the account password is [secret shop]',
    );
    const [called] = await fx.stores.store.events(run.row.id, ['step'], 0n, 10);
    assert.deepEqual([called?.kind, called?.data], ['tool', { tool: 'fake_mcp.lookup_order', error: false }]);
  });

  test('a tool not granted, arguments that are no object, or that show a secret, are refused before any call', async () => {
    const { run, tools } = await toolRun();
    const calls = server.calls.length;
    const results: string[] = [];
    const unknown = { action: 'call_tool', tool: 'fake_mcp.refund', arguments: '{}' } as const;
    assert.equal(await tools.call(unknown, results), 'failed');
    assert.equal(await tools.call(lookup('[1, 2]'), results), 'failed');
    assert.equal(await tools.call(lookup(`{"text":"${PASSWORD}"}`), results), 'failed');
    assert.deepEqual(results, [
      'call_tool fake_mcp.refund: no such tool; the tools are fake_mcp.lookup_order',
      'call_tool fake_mcp.lookup_order: arguments must be a JSON object',
      'call_tool: refused, it would show the value of the secret shop; leave secret values out',
    ]);
    assert.equal(server.calls.length, calls, 'the server was asked nothing');
    assert.match(run.memory.nudge ?? '', /Never put a secret's value \(shop\) into a call_tool/);
  });

  test('a server disconnected since the run began is told as gone', async () => {
    const { run, integration, tools } = await toolRun();
    await fx.stores.integrations.delete(workspaceId, integration.id);
    const results: string[] = [];
    assert.equal(await tools.call(lookup('{"text":"A-17"}'), results), 'failed');
    assert.deepEqual(results, ['call_tool fake_mcp.lookup_order: the integration is gone: it was disconnected']);
    const [gone] = await fx.stores.store.events(run.row.id, ['summary'], 1n, 10);
    assert.deepEqual(
      [gone?.kind, (gone?.data as { code?: string } | undefined)?.code],
      ['integration', 'integration_changed'],
    );
  });
});
