// Secrets, purchases at submit, integrations and rules through the fleet
// (docs/secrets.md): every code these routes and a submit can raise, as the
// Error object (docs/errors.md); one workspace never sees another's; the routes are
// free; and no stored value shows up in an answer, a log line or a prompt.
// The integration is a real MCP server (the official SDK's McpServer) over
// HTTPS from a CA made for this test, which the agent is told to trust.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ERRORS, type ErrorCode } from '@wap/errors';
import type { Fleet } from '@wap/fleet';
import { startFleet } from '@wap/testkit';
import { type FakeMcp, type FakeModel, makeTestTls, startFakeMcp, startFakeOpenAi } from '@wap/testsite';
import pg from 'pg';
import { availableCredits, call, type Reply } from './api.js';

// Values that must never come back: random, so a match anywhere is theirs.
const CARD = '4242 4242 4242 4242';
const CARD_DIGITS = CARD.replaceAll(' ', '');
const PASSWORD = `pw-${randomBytes(9).toString('base64url')}`;
const TOKEN = `tok-${randomBytes(12).toString('base64url')}`;
const WRONG_TOKEN = `tok-${randomBytes(12).toString('base64url')}`;
const VALUES = [CARD_DIGITS, PASSWORD, TOKEN, WRONG_TOKEN];

let fleet: Fleet;
let mcp: FakeMcp;
let model: FakeModel;

before(async () => {
  const tls = makeTestTls();
  const caFile = path.join(mkdtempSync(path.join(tmpdir(), 'wap-ca-')), 'ca.pem');
  writeFileSync(caFile, tls.ca);
  mcp = await startFakeMcp({
    tls,
    token: TOKEN,
    tools: [{ name: 'lookup_order', description: 'Finds an order by its number.' }],
  });
  // A model that finishes at once: the runs here are about what a submit grants, not what they do.
  model = await startFakeOpenAi({
    reply: () => ({
      evaluation: '',
      memory: '',
      plan: [],
      actions: [{ action: 'finish', success: true, answer: 'done' }],
    }),
  });
  fleet = await startFleet({
    env: {
      EGRESS_ALLOW: '127.0.0.0/8',
      AGENT_MODELS: JSON.stringify([{ name: 'scripted', kind: 'openai', baseUrl: model.url, model: 'scripted-1' }]),
      AGENT_DEFAULT_MODEL: 'scripted',
      AGENT_POLL: '200ms',
      AGENT_RUN_SECRETS_LIMIT: '3',
      AGENT_INTEGRATIONS_CA_FILE: caFile,
    },
  });
});

after(async () => {
  await fleet?.stop();
  await fleet?.dropDatabases();
  await mcp?.close();
  await model?.close();
});

const api = <T = Record<string, unknown>>(method: string, p: string, key: string, body?: unknown) =>
  call<T>(fleet.gatewayUrl, method, p, { key, body });

/** The Error object (docs/errors.md): the code, its fixed message, details as given (none when `details` is null). */
function assertError(reply: Reply, status: number, code: ErrorCode, details?: Record<string, unknown> | null) {
  assert.equal(reply.status, status, JSON.stringify(reply.body));
  const body = reply.body as { code?: string; message?: string; details?: unknown };
  assert.equal(body.code, code, JSON.stringify(body));
  assert.equal(body.message, ERRORS[code].message);
  assert.deepEqual(
    Object.keys(body).filter((k) => !['code', 'message', 'details'].includes(k)),
    [],
  );
  if (details === null) assert.equal(body.details, undefined);
  else if (details) assert.deepEqual(body.details, details);
}

const issuePaths = (reply: Reply) =>
  ((reply.body.details as { issues?: { path: string }[] } | undefined)?.issues ?? []).map((i) => i.path);

const noValueIn = (what: string, text: string) => {
  for (const v of VALUES) assert.ok(!text.includes(v), `${what} shows a stored value`);
};

interface Secret {
  id: string;
  handle: string;
  kind: string;
  domains: string[];
  last4: string | null;
}

const card = (handle: string, extra: Record<string, unknown> = {}) => ({
  handle,
  kind: 'card',
  value: { number: CARD, expMonth: 12, expYear: 2030, holder: 'Ada Lovelace', ...extra },
  domains: ['shop.example'],
});

describe('secrets', () => {
  test('stored under handles, listed without values, deleted; free; another workspace sees none', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const other = await fleet.workspace('pro');
    const credits = await availableCredits(fleet.gatewayUrl, apiKey);

    const visa = await api<{ secret: Secret }>('POST', '/v1/secrets', apiKey, card('visa'));
    assert.equal(visa.status, 201, JSON.stringify(visa.body));
    const { id, createdAt, ...shown } = visa.body.secret as Secret & { createdAt: string };
    assert.ok(id && !Number.isNaN(Date.parse(createdAt)));
    assert.deepEqual(shown, { handle: 'visa', kind: 'card', domains: ['shop.example'], last4: '4242' });
    const login = await api<{ secret: Secret }>('POST', '/v1/secrets', apiKey, {
      handle: 'shop-login',
      kind: 'login',
      value: { username: 'ada', password: PASSWORD },
      domains: ['Shop.Example', 'pay.example'],
    });
    assert.equal(login.status, 201, JSON.stringify(login.body));
    assert.deepEqual(login.body.secret.domains, ['shop.example', 'pay.example']);
    assert.equal(login.body.secret.last4, null);
    const env = await api('POST', '/v1/secrets', apiKey, {
      handle: 'MCP_TOKEN',
      kind: 'env',
      value: TOKEN,
      domains: ['127.0.0.1'],
    });
    assert.equal(env.status, 201);
    noValueIn('a create answer', JSON.stringify([visa.body, login.body, env.body]));

    const listed = await api<{ secrets: Secret[] }>('GET', '/v1/secrets', apiKey);
    assert.deepEqual(
      listed.body.secrets.map((s) => [s.handle, s.kind, s.last4]),
      [
        ['visa', 'card', '4242'],
        ['shop-login', 'login', null],
        ['MCP_TOKEN', 'env', null],
      ],
    );
    noValueIn('the listing', JSON.stringify(listed.body));

    assert.deepEqual((await api<{ secrets: Secret[] }>('GET', '/v1/secrets', other.apiKey)).body.secrets, []);
    assertError(await api('DELETE', `/v1/secrets/${visa.body.secret.id}`, other.apiKey), 404, 'not_found');
    assertError(await api('DELETE', '/v1/secrets/not-an-id', apiKey), 404, 'not_found');
    const deleted = await api('DELETE', `/v1/secrets/${login.body.secret.id}`, apiKey);
    assert.equal(deleted.status, 200);
    assertError(await api('DELETE', `/v1/secrets/${login.body.secret.id}`, apiKey), 404, 'not_found');
    assert.deepEqual(
      (await api<{ secrets: Secret[] }>('GET', '/v1/secrets', apiKey)).body.secrets.map((s) => s.handle),
      ['visa', 'MCP_TOKEN'],
    );
    assert.equal(await availableCredits(fleet.gatewayUrl, apiKey), credits, 'secret routes are free');
  });

  test('a CVC is cvc_not_storable; a bad number, a taken handle or a value unlike its kind is bad_request', async () => {
    const { apiKey } = await fleet.workspace('pro');
    assertError(await api('POST', '/v1/secrets', apiKey, card('with-cvc', { cvc: '123' })), 422, 'cvc_not_storable', {
      field: 'value.cvc',
    });
    const typo = await api('POST', '/v1/secrets', apiKey, card('typo', { number: '4242 4242 4242 4241' }));
    assertError(typo, 400, 'bad_request');
    assert.deepEqual(issuePaths(typo), ['value.number']);
    assert.equal((await api('POST', '/v1/secrets', apiKey, card('mine'))).status, 201);
    assert.deepEqual(issuePaths(await api('POST', '/v1/secrets', apiKey, card('mine'))), ['handle']);
    const mismatch = await api('POST', '/v1/secrets', apiKey, { ...card('odd'), kind: 'env' });
    assert.deepEqual(issuePaths(mismatch), ['value']);
    const where = await api('POST', '/v1/secrets', apiKey, { ...card('where'), domains: ['https://shop.example/x'] });
    assert.deepEqual(issuePaths(where), ['domains.0']);
    for (const r of [typo, mismatch, where]) noValueIn('a refusal', JSON.stringify(r.body));
    assert.deepEqual(
      (await api<{ secrets: Secret[] }>('GET', '/v1/secrets', apiKey)).body.secrets.map((s) => s.handle),
      ['mine'],
      'nothing refused was stored',
    );
  });

  test('through MCP too: the tool answers the listing fields, never the value', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const client = new Client({ name: 'secrets-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${fleet.gatewayUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
      }),
    );
    try {
      const made = await client.callTool({
        name: 'service_secrets_create',
        arguments: {
          handle: 'via-mcp',
          kind: 'login',
          value: { username: 'ada', password: PASSWORD },
          domains: ['x.example'],
        },
      });
      assert.equal(made.isError ?? false, false, JSON.stringify(made));
      const listed = await client.callTool({ name: 'service_secrets_list', arguments: {} });
      assert.match(JSON.stringify(listed.content), /via-mcp/);
      noValueIn('an MCP answer', JSON.stringify([made, listed]));
    } finally {
      await client.close();
    }
  });
});

describe('a submit that grants secrets and purchases', () => {
  const submit = (key: string, body: Record<string, unknown>) => api<{ id: string }>('POST', '/v1/agent', key, body);

  test('a card number in the task is card_number_in_task, with nothing echoed', async () => {
    const { apiKey } = await fleet.workspace('pro');
    for (const task of [`Buy it with ${CARD} exp 12/30`, 'Pay with card 4242-4242-4242-4242', 'use 4222222222222'])
      assertError(await submit(apiKey, { task }), 422, 'card_number_in_task', null);
    // A number that fails the check digit is no card: the run is queued.
    assert.equal((await submit(apiKey, { task: 'Track order 4242 4242 4242 4241' })).status, 202);
  });

  test('handles past the per-run limit, a card without a spend cap, and unknown names are refused', async () => {
    const { apiKey } = await fleet.workspace('pro');
    for (const h of ['a', 'b', 'c', 'd'])
      await api('POST', '/v1/secrets', apiKey, {
        handle: h,
        kind: 'env',
        value: `v-${h}-${TOKEN}`,
        domains: ['a.example'],
      });
    await api('POST', '/v1/secrets', apiKey, card('visa'));
    assertError(await submit(apiKey, { task: 'x', secrets: ['a', 'b', 'c', 'd'] }), 422, 'run_secrets_limit', {
      limit: 3,
      requested: 4,
    });
    assertError(await submit(apiKey, { task: 'buy', secrets: ['visa'] }), 422, 'spend_cap_required', {
      field: 'purchases.spendCap',
    });
    assertError(
      await submit(apiKey, { task: 'buy', secrets: ['visa'], purchases: { currency: 'EUR', perPurchaseLimit: 100 } }),
      422,
      'spend_cap_required',
      { field: 'purchases.spendCap' },
    );
    assert.deepEqual(issuePaths(await submit(apiKey, { task: 'x', secrets: ['a', 'nope'] })), ['secrets.1']);
    assert.deepEqual(
      issuePaths(await submit(apiKey, { task: 'x', integrations: ['00000000-0000-4000-8000-000000000000'] })),
      ['integrations.0'],
    );
    assert.deepEqual(
      issuePaths(
        await submit(apiKey, {
          task: 'buy',
          secrets: ['visa'],
          purchases: { spendCap: 1000, perPurchaseLimit: 5000, currency: 'EUR' },
        }),
      ),
      ['purchases.perPurchaseLimit'],
    );
    // Another workspace's handle is no handle here.
    const other = await fleet.workspace('pro');
    assert.deepEqual(issuePaths(await submit(other.apiKey, { task: 'x', secrets: ['a'] })), ['secrets.0']);
  });

  test('a run with a card, its spend cap and merchants is queued with its grants; a deletion reaches it', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const visa = await api<{ secret: Secret }>('POST', '/v1/secrets', apiKey, card('visa'));
    const r = await submit(apiKey, {
      task: 'Buy the blue mug',
      secrets: ['visa', 'visa'],
      purchases: { spendCap: 2500, perPurchaseLimit: 2000, currency: 'EUR', merchants: ['Shop.Example'] },
    });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const db = new pg.Client({ connectionString: fleet.databaseUrl('agent') });
    await db.connect();
    try {
      const grant = await db.query(
        'SELECT secret_handles, spend_cap, per_purchase_limit, currency, merchants FROM run_grants WHERE run_id = $1',
        [r.body.id],
      );
      assert.deepEqual(grant.rows, [
        {
          secret_handles: ['visa'],
          spend_cap: 2500,
          per_purchase_limit: 2000,
          currency: 'EUR',
          merchants: ['shop.example'],
        },
      ]);
      const links = () => db.query('SELECT 1 FROM run_secrets WHERE run_id = $1', [r.body.id]);
      assert.equal((await links()).rowCount, 1);
      assert.equal((await api('DELETE', `/v1/secrets/${visa.body.secret.id}`, apiKey)).status, 200);
      assert.equal((await links()).rowCount, 0, 'the record of which runs used it went with it');
    } finally {
      await db.end();
    }
  });
});

describe('integrations', () => {
  interface Integration {
    id: string;
    url: string;
    secret: string;
    server: { name: string; version: string };
    tools: { name: string; description: string; inputSchema: Record<string, unknown> }[];
    changedAt: string | null;
  }

  test('connected with a checked MCP server, listed with its tools and handle, deleted; free; per workspace', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const other = await fleet.workspace('pro');
    await api('POST', '/v1/secrets', apiKey, { handle: 'mcp', kind: 'env', value: TOKEN, domains: ['127.0.0.1'] });
    const credits = await availableCredits(fleet.gatewayUrl, apiKey);
    const seen = mcp.authorizations.length;

    const made = await api<{ integration: Integration }>('POST', '/v1/integrations', apiKey, {
      url: mcp.url,
      secret: 'mcp',
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const integration = made.body.integration;
    assert.equal(integration.url, mcp.url);
    assert.equal(integration.secret, 'mcp');
    assert.equal(integration.server.name, 'fake-mcp');
    assert.deepEqual(
      integration.tools.map((t) => [t.name, t.description, t.inputSchema.type]),
      [['lookup_order', 'Finds an order by its number.', 'object']],
    );
    assert.equal(integration.changedAt, null);
    assert.ok(
      mcp.authorizations.slice(seen).every((a) => a === `Bearer ${TOKEN}`),
      'the secret was the bearer token',
    );

    const listed = await api<{ integrations: Integration[] }>('GET', '/v1/integrations', apiKey);
    assert.deepEqual(
      listed.body.integrations.map((i) => [i.id, i.secret, i.tools.length]),
      [[integration.id, 'mcp', 1]],
    );
    noValueIn('an integration answer', JSON.stringify([made.body, listed.body]));
    assert.deepEqual(
      (await api<{ integrations: Integration[] }>('GET', '/v1/integrations', other.apiKey)).body.integrations,
      [],
    );
    assertError(await api('DELETE', `/v1/integrations/${integration.id}`, other.apiKey), 404, 'not_found');

    assert.equal(await availableCredits(fleet.gatewayUrl, apiKey), credits, 'integration routes are free');

    // A run names it to reach it (the run bills what it does).
    const run = await api<{ id: string }>('POST', '/v1/agent', apiKey, {
      task: 'look up A-1',
      integrations: [integration.id],
    });
    assert.equal(run.status, 202, JSON.stringify(run.body));

    assert.equal((await api('DELETE', `/v1/integrations/${integration.id}`, apiKey)).status, 200);
    assert.deepEqual(
      (await api<{ integrations: Integration[] }>('GET', '/v1/integrations', apiKey)).body.integrations,
      [],
    );
    assert.deepEqual(
      (await api<{ secrets: Secret[] }>('GET', '/v1/secrets', apiKey)).body.secrets.map((s) => s.handle),
      ['mcp'],
      'the credential stays in the secrets store',
    );
  });

  test('integration_check_failed says why: not HTTPS, unreachable or guarded, token rejected, not MCP', async () => {
    const { apiKey } = await fleet.workspace('pro');
    await api('POST', '/v1/secrets', apiKey, {
      handle: 'mcp',
      kind: 'env',
      value: TOKEN,
      domains: ['127.0.0.1', '169.254.169.254'],
    });
    await api('POST', '/v1/secrets', apiKey, {
      handle: 'wrong',
      kind: 'env',
      value: WRONG_TOKEN,
      domains: ['127.0.0.1'],
    });
    const credits = await availableCredits(fleet.gatewayUrl, apiKey);
    const connect = (url: string, secret = 'mcp') => api('POST', '/v1/integrations', apiKey, { url, secret });
    const failed = async (url: string, reason: string, secret = 'mcp') =>
      assertError(await connect(url, secret), 422, 'integration_check_failed', { endpoint: new URL(url).href, reason });

    await failed(mcp.url.replace('https:', 'http:'), 'not_https');
    await failed('https://127.0.0.1:9/mcp', 'unreachable');
    await failed('https://169.254.169.254/mcp', 'unreachable'); // the metadata address: refused, never dialled
    await failed(mcp.url, 'auth_rejected', 'wrong');
    await failed(mcp.url.replace('/mcp', '/plain'), 'not_mcp');
    assert.deepEqual(issuePaths(await connect(mcp.url, 'missing')), ['secret']);
    assert.deepEqual((await api<{ integrations: unknown[] }>('GET', '/v1/integrations', apiKey)).body.integrations, []);
    assert.equal(await availableCredits(fleet.gatewayUrl, apiKey), credits, 'a failed check is free too');
  });
});

describe('rules', () => {
  interface Rule {
    text: string;
    class: 'ENFORCED' | 'GUIDANCE';
    gate: Record<string, unknown> | null;
    reason: string | null;
  }
  type Rules = { rules: Rule[]; updatedAt: string | null };

  test('set with plain sentences, answered and read back with their classes; free; per workspace', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const other = await fleet.workspace('pro');
    const credits = await availableCredits(fleet.gatewayUrl, apiKey);
    const before = await api<Rules>('GET', '/v1/rules', apiKey);
    assert.deepEqual(before.body, { success: true, rules: [], updatedAt: null });

    const put = await api<Rules>('PUT', '/v1/rules', apiKey, {
      rules: ['Only visit example.com and example.org', 'Never spend more than 50 EUR', 'Be polite to support staff'],
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(
      put.body.rules.map((r) => [r.class, r.gate, r.reason === null]),
      [
        ['ENFORCED', { kind: 'domain_allow', domains: ['example.com', 'example.org'] }, true],
        ['ENFORCED', { kind: 'spend_cap', amount: 50, currency: 'EUR' }, true],
        ['GUIDANCE', null, false],
      ],
    );
    assert.ok(put.body.updatedAt);
    const got = await api<Rules>('GET', '/v1/rules', apiKey);
    assert.deepEqual(got.body, put.body, 'read back as set');
    assert.deepEqual((await api<Rules>('GET', '/v1/rules', other.apiKey)).body.rules, []);

    const replaced = await api<Rules>('PUT', '/v1/rules', apiKey, { rules: ['Never download files'] });
    assert.deepEqual(
      replaced.body.rules.map((r) => r.text),
      ['Never download files'],
    );
    assertError(await api('PUT', '/v1/rules', apiKey, { rules: ['fine', ''] }), 400, 'bad_request');
    assert.deepEqual(
      (await api<Rules>('GET', '/v1/rules', apiKey)).body.rules.map((r) => r.text),
      ['Never download files'],
    );
    assert.equal(await availableCredits(fleet.gatewayUrl, apiKey), credits, 'rule routes are free');
  });
});

describe('what is never shown', () => {
  test('no stored value is in any service’s log or any prompt the model was sent', async () => {
    const logs = Object.fromEntries(
      (['gateway', 'agent'] as const).map((service) => [service, readFileSync(fleet.logFile(service), 'utf8')]),
    );
    assert.match(logs.gateway ?? '', /"path":"\/v1\/secrets"/, 'the gateway logged these routes');
    for (const [service, text] of Object.entries(logs)) noValueIn(`the ${service} log`, text);
    noValueIn('a prompt', JSON.stringify(model.requests.map((r) => r.body)));
  });
});
