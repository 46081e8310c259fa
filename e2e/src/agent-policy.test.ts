// What a run may do beyond its task, through the fleet (docs/secrets.md,
// docs/rules.md): it fills a login and a card it was granted without the
// model, a log, an event, a record, a database, a NATS message, the
// recording or the network log ever holding a value; it buys only what a
// person approves, within its limits, each breach ending it with its code;
// the workspace's rules block what they forbid, naming the rule; and it calls
// the tools of an MCP server it was granted, told when the server changed or
// went away. The model is a scripted stand-in on loopback.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { natsServers } from '@wap/events';
import type { Fleet } from '@wap/fleet';
import { startFleet, until } from '@wap/testkit';
import {
  type FakeMcp,
  type FakeModel,
  type ModelRequest,
  makeTestTls,
  modelReply,
  startFakeMcp,
  startFakeOpenAi,
} from '@wap/testsite';
import pg from 'pg';
import { call } from './api.js';

// Values that must never come back: random, so a match anywhere is theirs.
const PASSWORD = `pw-${randomBytes(9).toString('base64url')}`;
const CARD = '4000 0566 5566 5556';
const CARD_DIGITS = CARD.replaceAll(' ', '');
const TOKEN = `tok-${randomBytes(12).toString('base64url')}`;
const VALUES = [PASSWORD, CARD_DIGITS, TOKEN];

let fleet: Fleet;
let model: FakeModel;
let mcp: FakeMcp;
let nats: NatsConnection;
let site: Server;
let origin: string;
/** Every NATS message of the fleet while the tests run, as text. */
const messages: string[] = [];
/** What the shop's forms received. */
const received: Record<string, string>[] = [];

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', origin);
  const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
  if (req.method === 'POST') {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(body));
      received.push({ path: url.pathname, ...form });
      if (url.pathname === '/login') res.writeHead(303, { location: '/checkout' }).end();
      else html(page('Paid', '<h1>Thank you</h1><p>Your order is paid.</p>'));
    });
    return;
  }
  if (url.pathname === '/login')
    return html(
      page(
        'Sign in',
        `<form method=post action=/login><label>User <input name=user></label>
         <label>Password <input type=password name=password></label><button>Sign in</button></form>`,
      ),
    );
  if (url.pathname === '/checkout')
    return html(
      page(
        'Checkout',
        `<h1>Desk lamp, 12.50 EUR</h1><form method=post action=/pay>
         <label>Card number <input name=number autocomplete=off></label>
         <label>Expiry <input name=expiry></label><label>Name on card <input name=holder></label>
         <label>CVC <input name=cvc></label>
         <button>Pay</button></form>`,
      ),
    );
  return html(page('Shop', '<a href="/checkout">Checkout</a>'));
}

/** The scripted steps, by task. */
const scripts = new Map<string, (prompt: string) => unknown>();
const step = (actions: unknown[]) => ({ evaluation: '', memory: '', plan: [], actions });
/** A step that passes time without repeating itself (a repeat would be a loop). */
let idling = 0;
const idle = () => step([idling++ % 2 ? { action: 'wait', seconds: 1 } : { action: 'scroll', direction: 'down' }]);
/** The text of a request's user messages, parts joined. */
const promptOf = (request: ModelRequest): string =>
  (request.body?.messages ?? [])
    .filter((m: { role: string }) => m.role === 'user')
    .map((m: { content: unknown }) =>
      typeof m.content === 'string'
        ? m.content
        : (m.content as { type: string; text?: string }[])
            .filter((b) => b.type === 'text')
            .map((b) => b.text)
            .join('\n'),
    )
    .join('\n');

/** The index the element list gives the first line matching `pattern`. */
function indexOf(prompt: string, pattern: RegExp): number {
  for (const line of prompt.split('\n')) {
    const m = /\[(\d+)\]/.exec(line);
    if (m && pattern.test(line)) return Number(m[1]);
  }
  throw new Error(`no element matches ${pattern}`);
}

before(async () => {
  site = createServer(handle);
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  const tls = makeTestTls();
  const caFile = path.join(mkdtempSync(path.join(tmpdir(), 'wap-ca-')), 'ca.pem');
  writeFileSync(caFile, tls.ca);
  mcp = await startFakeMcp({
    tls,
    token: TOKEN,
    tools: [
      { name: 'lookup_order', description: 'Finds an order by its number.', reply: (a) => `order ${a.text}: shipped` },
    ],
  });
  model = await startFakeOpenAi({
    reply: (request) => {
      const prompt = promptOf(request);
      const task = /^Task: (.*)$/m.exec(prompt)?.[1] ?? '';
      const script = scripts.get(task);
      return script ? script(prompt) : modelReply.fail(400);
    },
  });
  fleet = await startFleet({
    env: {
      EGRESS_ALLOW: '127.0.0.0/8',
      SESSION_WARM: '1',
      AGENT_MODELS: JSON.stringify([{ name: 'scripted', kind: 'openai', baseUrl: model.url, model: 'scripted-1' }]),
      AGENT_DEFAULT_MODEL: 'scripted',
      AGENT_POLL: '200ms',
      // Long enough for a test to approve on a busy machine; short enough to watch one lapse.
      AGENT_APPROVAL_TIMEOUT: '10s',
      AGENT_INTEGRATIONS_CA_FILE: caFile,
    },
  });
  nats = await connect(natsServers(fleet.settings.infra.natsUrl));
  const sub = nats.subscribe('>');
  void (async () => {
    for await (const m of sub) {
      const bytes = Buffer.from(m.data);
      let text = bytes.toString('utf8');
      try {
        if (bytes[0] === 0x1f && bytes[1] === 0x8b) text = gunzipSync(bytes).toString('utf8');
      } catch {
        // kept as it came
      }
      messages.push(`${m.subject} ${text}`);
    }
  })();
});

after(async () => {
  await nats?.close();
  await fleet?.stop();
  await fleet?.dropDatabases();
  await model?.close();
  await mcp?.close();
  site?.close();
});

interface Run {
  id: string;
  status: string;
  outcome: string | null;
  pausedFor: string | null;
  question: string | null;
  answer: unknown;
  reason: { code: string; message: string } | null;
  sessionId: string | null;
}
interface Event {
  seq: number;
  kind: string;
  message: string;
  data: Record<string, unknown> | null;
}

const api = <T = Record<string, unknown>>(key: string, method: string, p: string, body?: unknown) =>
  call<T>(fleet.gatewayUrl, method, p, { key, ...(body !== undefined && { body }) });

async function submit(key: string, body: Record<string, unknown>): Promise<string> {
  const out = await api<{ id: string }>(key, 'POST', '/v1/agent', body);
  assert.equal(out.status, 202, JSON.stringify(out.body));
  return out.body.id;
}

async function waitFor(key: string, id: string, done: (r: Run) => boolean): Promise<Run> {
  let run: Run | undefined;
  await until(
    `run ${id} to reach the state wanted`,
    async () => {
      run = (await api<{ run: Run }>(key, 'GET', `/v1/agent/${id}`)).body.run;
      return done(run);
    },
    90_000,
  );
  return run as Run;
}
const settled = (r: Run) => r.status === 'settled';

async function eventsOf(key: string, id: string): Promise<Event[]> {
  const out = await api<{ events: Event[] }>(key, 'GET', `/v1/agent/${id}/events?level=debug&limit=500`);
  return out.body.events;
}

async function secret(key: string, body: Record<string, unknown>): Promise<string> {
  const out = await api<{ secret: { id: string } }>(key, 'POST', '/v1/secrets', body);
  assert.equal(out.status, 201, JSON.stringify(out.body));
  return out.body.secret.id;
}

const login = (handle: string, domains = ['127.0.0.1']) => ({
  handle,
  kind: 'login',
  value: { username: 'ada', password: PASSWORD },
  domains,
});
const card = (handle: string) => ({
  handle,
  kind: 'card',
  value: { number: CARD, expMonth: 7, expYear: 2031, holder: 'Ada Lovelace' },
  domains: ['127.0.0.1'],
});

/** Every row of every table of every database of the fleet, as text. */
async function dumpDatabases(): Promise<string> {
  const out: string[] = [];
  for (const service of [
    'gateway',
    'billing-ledger',
    'crawl',
    'agent',
    'monitor',
    'session-recorder',
    'browser-host',
  ] as const) {
    const db = new pg.Client({ connectionString: fleet.databaseUrl(service) });
    await db.connect().catch(() => undefined);
    try {
      const { rows: tables } = await db.query<{ name: string; bytea: string[] }>(
        `SELECT quote_ident(t.table_schema) || '.' || quote_ident(t.table_name) AS name,
                array_remove(array_agg(CASE WHEN c.data_type = 'bytea' THEN quote_ident(c.column_name) END), NULL) AS bytea
           FROM information_schema.tables t JOIN information_schema.columns c USING (table_schema, table_name)
          WHERE t.table_schema NOT IN ('pg_catalog', 'information_schema') AND t.table_type = 'BASE TABLE'
          GROUP BY 1`,
      );
      for (const t of tables) {
        const { rows } = await db.query<{ row: string }>(`SELECT t::text AS row FROM ${t.name} t`);
        out.push(...rows.map((r) => r.row));
        // Compressed columns (recording chunks, network logs) are read as they decompress.
        for (const column of t.bytea) {
          const { rows: blobs } = await db.query<{ b: Buffer | null }>(`SELECT ${column} AS b FROM ${t.name}`);
          for (const { b } of blobs) if (b && b[0] === 0x1f && b[1] === 0x8b) out.push(gunzipSync(b).toString('utf8'));
        }
      }
    } catch {
      // a service without a database of its own
    } finally {
      await db.end().catch(() => undefined);
    }
  }
  return out.join('\n');
}

function assertNone(text: string, what: string) {
  for (const v of VALUES) assert.ok(!text.includes(v), `${what} holds a secret value`);
  assert.ok(!text.replace(/[\s-]/g, '').includes(CARD_DIGITS), `${what} holds the card number`);
}

describe('secrets and purchases', () => {
  test('fills a login and a card for an approved purchase; no value reaches a prompt, log, row, message, event or recording', async () => {
    const { apiKey } = await fleet.workspace('pro');
    await secret(apiKey, login('shop-login'));
    await secret(apiKey, card('visa'));
    const task = 'Buy the desk lamp';
    let leaked = false;
    scripts.set(task, (prompt) => {
      if (prompt.includes(`Page: ${origin}/login`))
        return step([
          { action: 'fill_secret', index: indexOf(prompt, /name=user/), handle: 'shop-login', part: 'username' },
          { action: 'fill_secret', index: indexOf(prompt, /name=password/), handle: 'shop-login', part: 'password' },
          { action: 'click', index: indexOf(prompt, /Sign in/) },
        ]);
      if (prompt.includes(`Page: ${origin}/checkout`)) {
        if (!prompt.includes('purchase approved') && !prompt.includes('value=•••'))
          return step([
            { action: 'purchase', merchant: '127.0.0.1', amount: 12.5, currency: 'EUR', item: 'desk lamp' },
          ]);
        if (!/name=number[^\n]*value=•••/.test(prompt))
          return step([
            { action: 'fill_secret', index: indexOf(prompt, /name=number/), handle: 'visa', part: 'number' },
            { action: 'fill_secret', index: indexOf(prompt, /name=expiry/), handle: 'visa', part: 'expiry' },
            { action: 'fill_secret', index: indexOf(prompt, /name=holder/), handle: 'visa', part: 'holder' },
          ]);
        return step([
          { action: 'fill_secret', index: indexOf(prompt, /name=cvc/), handle: 'visa', part: 'cvc' },
          { action: 'click', index: indexOf(prompt, /Pay/) },
        ]);
      }
      // A model that would put a value into its answer is refused once, then finishes without it.
      if (!leaked) {
        leaked = true;
        return step([{ action: 'finish', success: true, answer: `paid; the password was ${PASSWORD}` }]);
      }
      return step([{ action: 'finish', success: true, answer: 'paid 12.50 EUR' }]);
    });
    const id = await submit(apiKey, {
      task,
      url: `${origin}/login`,
      secrets: ['shop-login', 'visa'],
      purchases: { spendCap: 5_000, perPurchaseLimit: 3_000, currency: 'EUR', merchants: ['127.0.0.1'] },
    });
    const paused = await waitFor(apiKey, id, (r) => r.status === 'paused' || settled(r));
    assert.equal(paused.pausedFor, 'approval', JSON.stringify(paused));
    assert.match(paused.question ?? '', /12\.50 EUR/);
    // A CVC is never stored with the card: the approval brings it, for this purchase.
    const approved = await api<{ run: Run }>(apiKey, 'POST', `/v1/agent/${id}/answer`, { approve: true, cvc: '737' });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    const run = await waitFor(apiKey, id, settled);
    assert.equal(run.outcome, 'completed', JSON.stringify(run.reason));
    assert.equal(run.answer, 'paid 12.50 EUR');

    // The shop got the values, from the store: the model never had them.
    assert.deepEqual(
      received.find((r) => r.path === '/login'),
      { path: '/login', user: 'ada', password: PASSWORD },
    );
    assert.deepEqual(
      received.find((r) => r.path === '/pay'),
      { path: '/pay', number: CARD_DIGITS, expiry: '07/31', holder: 'Ada Lovelace', cvc: '737' },
    );
    const events = await eventsOf(apiKey, id);
    assert.ok(
      events.some((e) => e.data?.code === 'secret_in_answer'),
      'the answer showing a value was withheld',
    );
    assert.equal(events.filter((e) => e.kind === 'secret').length, 6, 'six fills');
    const records = await api<{ data: { record: { purchase?: { amount: string } } }[] }>(
      apiKey,
      'GET',
      `/v1/agent/${id}/results`,
    );
    assert.deepEqual(
      records.body.data.map((r) => r.record.purchase?.amount),
      ['12.50 EUR'],
      'the purchase made is a record of the run',
    );

    // Nowhere else.
    assertNone(JSON.stringify({ run, events, records: records.body }), 'what the API answers');
    assertNone(model.requests.map((r) => JSON.stringify(r.body)).join('\n'), 'a prompt');
    await until('the session to end', async () => {
      const s = await api<{ session: { status: string } }>(apiKey, 'GET', `/v1/sessions/${run.sessionId}`);
      return s.body.session?.status === 'ended';
    });
    const network = await api(apiKey, 'GET', `/v1/sessions/${run.sessionId}/network?bodies=true`);
    assert.equal(network.status, 200, JSON.stringify(network.body));
    const log = String(network.body);
    assert.match(log, /\/pay/, 'the network log has the payment request');
    assertNone(log, 'the network log');
    assertNone(await dumpDatabases(), 'a database (recordings included)');
    assertNone(messages.join('\n'), 'a NATS message');
    const logs = readdirSync(fleet.settings.logDir)
      .map((f) => readFileSync(path.join(fleet.settings.logDir, f), 'utf8'))
      .join('\n');
    assertNone(logs, 'a log file');
  });

  test('a purchase past a limit or a merchant not allowed ends the run with its code', async () => {
    const { apiKey } = await fleet.workspace('pro');
    await secret(apiKey, card('visa'));
    const cases: [string, Record<string, unknown>, number, string][] = [
      [
        'Buy from the wrong shop',
        { spendCap: 5_000, currency: 'EUR', merchants: ['shop.example'] },
        12.5,
        'merchant_not_allowed',
      ],
      [
        'Buy too dear a lamp',
        { spendCap: 5_000, perPurchaseLimit: 1_000, currency: 'EUR' },
        12.5,
        'per_purchase_exceeded',
      ],
      ['Buy past the cap', { spendCap: 1_000, currency: 'EUR' }, 12.5, 'spend_cap_exceeded'],
    ];
    for (const [task, purchases, amount, code] of cases) {
      scripts.set(task, () =>
        step([{ action: 'purchase', merchant: '127.0.0.1', amount, currency: 'EUR', item: 'lamp' }]),
      );
      const id = await submit(apiKey, { task, url: `${origin}/checkout`, secrets: ['visa'], purchases });
      const run = await waitFor(apiKey, id, settled);
      assert.deepEqual([run.outcome, run.reason?.code], ['failed', code], task);
    }
  });

  test('a denied purchase ends the run; one nobody answers times out; approving nothing is no_open_purchase', async () => {
    const { apiKey } = await fleet.workspace('pro');
    await secret(apiKey, card('visa'));
    const purchases = { spendCap: 5_000, currency: 'EUR' };
    for (const task of ['Buy a lamp, denied', 'Buy a lamp, unanswered'])
      scripts.set(task, () =>
        step([{ action: 'purchase', merchant: '127.0.0.1', amount: 12.5, currency: 'EUR', item: 'lamp' }]),
      );
    const denied = await submit(apiKey, {
      task: 'Buy a lamp, denied',
      url: `${origin}/checkout`,
      secrets: ['visa'],
      purchases,
    });
    await waitFor(apiKey, denied, (r) => r.pausedFor === 'approval');
    // An answer in words is not a decision: it is not used (the run waits for a decision, and says so).
    const words = await api<{ code: string; details: { status: string } }>(
      apiKey,
      'POST',
      `/v1/agent/${denied}/answer`,
      { answer: 'yes please' },
    );
    assert.deepEqual(
      [words.status, words.body.code, words.body.details?.status],
      [409, 'answer_lost', 'paused_for_approval'],
      JSON.stringify(words.body),
    );
    const cvcOnDenial = await api(apiKey, 'POST', `/v1/agent/${denied}/answer`, { approve: false, cvc: '123' });
    assert.equal(cvcOnDenial.status, 400, 'a CVC goes with an approval only');
    assert.equal((await api(apiKey, 'POST', `/v1/agent/${denied}/answer`, { approve: false })).status, 200);
    const deniedRun = await waitFor(apiKey, denied, settled);
    assert.deepEqual([deniedRun.outcome, deniedRun.reason?.code], ['failed', 'approval_denied']);

    const waited = await submit(apiKey, {
      task: 'Buy a lamp, unanswered',
      url: `${origin}/checkout`,
      secrets: ['visa'],
      purchases,
    });
    const timedOut = await waitFor(apiKey, waited, settled);
    assert.deepEqual([timedOut.outcome, timedOut.reason?.code], ['failed', 'approval_timed_out']);

    const asking = 'Ask before doing anything';
    scripts.set(asking, () => step([{ action: 'ask', question: 'Which lamp?' }]));
    const asked = await submit(apiKey, { task: asking, url: `${origin}/checkout` });
    await waitFor(apiKey, asked, (r) => r.pausedFor === 'question');
    const nothing = await api<{ code: string }>(apiKey, 'POST', `/v1/agent/${asked}/answer`, { approve: true });
    assert.deepEqual([nothing.status, nothing.body.code], [409, 'no_open_purchase']);
    await api(apiKey, 'POST', `/v1/agent/${asked}/cancel`);
  });

  test('a secret is filled only on its domains, and not at all once deleted, even mid-run', async () => {
    const { apiKey } = await fleet.workspace('pro');
    await secret(apiKey, login('elsewhere', ['shop.example']));
    const id = await secret(apiKey, login('doomed'));
    const task = 'Sign in twice';
    let deleted = false;
    let phase = 0;
    scripts.set(task, (prompt) => {
      if (phase === 0) {
        phase++;
        return step([
          { action: 'fill_secret', index: indexOf(prompt, /name=user/), handle: 'elsewhere', part: 'username' },
        ]);
      }
      if (phase === 1) {
        phase++;
        return step([
          { action: 'fill_secret', index: indexOf(prompt, /name=user/), handle: 'doomed', part: 'username' },
        ]);
      }
      if (!deleted) return idle();
      if (phase === 2) {
        phase++;
        return step([
          { action: 'fill_secret', index: indexOf(prompt, /name=password/), handle: 'doomed', part: 'password' },
        ]);
      }
      return step([{ action: 'finish', success: false, answer: 'could not sign in' }]);
    });
    const run = await submit(apiKey, { task, url: `${origin}/login`, secrets: ['elsewhere', 'doomed'] });
    await until(
      'the first fill of doomed',
      async () => (await eventsOf(apiKey, run)).some((e) => e.kind === 'secret' && e.data?.handle === 'doomed'),
      90_000,
    );
    assert.equal((await api(apiKey, 'DELETE', `/v1/secrets/${id}`)).status, 200);
    deleted = true;
    await waitFor(apiKey, run, settled);
    const codes = (await eventsOf(apiKey, run)).flatMap((e) => (e.data?.code ? [e.data.code] : []));
    assert.deepEqual(codes, ['secret_intent_invalid', 'run_secret_undeliverable']);
  });
});

describe('rules', () => {
  test('a rule blocks what it forbids, naming itself; the run goes on', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const set = await api<{ rules: { class: string }[] }>(apiKey, 'PUT', '/v1/rules', {
      rules: ['Never visit example.com.', 'Never submit forms.', 'Be polite.'],
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(
      set.body.rules.map((r) => r.class),
      ['ENFORCED', 'ENFORCED', 'GUIDANCE'],
    );
    const task = 'Go where the rules say not to';
    const told: string[] = [];
    scripts.set(task, (prompt) => {
      told.push(...(prompt.match(/blocked by the workspace rule "[^"]*"/g) ?? []));
      if (told.length === 0) return step([{ action: 'navigate', url: 'https://www.example.com/' }]);
      if (told.length === 1) return step([{ action: 'click', index: indexOf(prompt, /Sign in/) }]);
      return step([{ action: 'finish', success: false, answer: 'the rules forbid it' }]);
    });
    const sent = received.length;
    const id = await submit(apiKey, { task, url: `${origin}/login` });
    const run = await waitFor(apiKey, id, settled);
    assert.equal(run.reason?.code, 'task_failed', JSON.stringify(await eventsOf(apiKey, id)));
    assert.equal(received.length, sent, 'the form was not sent');
    const blocked = (await eventsOf(apiKey, id)).filter((e) => e.kind === 'blocked').map((e) => e.data?.rule);
    assert.deepEqual(blocked, ['Never visit example.com.', 'Never submit forms.']);
    assert.deepEqual(
      told,
      [
        'blocked by the workspace rule "Never visit example.com."',
        'blocked by the workspace rule "Never submit forms."',
      ],
      'the model is told which rule stopped it',
    );
    const prompt = model.requests.map((r) => JSON.stringify(r.body)).find((b) => b.includes(task)) ?? '';
    assert.ok(prompt.includes('Be polite.'), 'guidance reaches the model');
    await api(apiKey, 'PUT', '/v1/rules', { rules: [] });
  });
});

describe('integrations', () => {
  test("the model calls a granted server's tool mid-run; a changed server is told; a deleted one is gone", async () => {
    const { apiKey } = await fleet.workspace('pro');
    await secret(apiKey, { handle: 'MCP_TOKEN', kind: 'env', value: TOKEN, domains: ['127.0.0.1'] });
    const connected = await api<{ integration: { id: string } }>(apiKey, 'POST', '/v1/integrations', {
      url: mcp.url,
      secret: 'MCP_TOKEN',
    });
    assert.equal(connected.status, 201, JSON.stringify(connected.body));
    const integration = connected.body.integration.id;
    const task = 'Look up order 42';
    scripts.set(task, (prompt) => {
      if (!prompt.includes('order 42: shipped'))
        return step([{ action: 'call_tool', tool: 'fake_mcp.lookup_order', arguments: '{"text":"42"}' }]);
      return step([{ action: 'finish', success: true, answer: 'shipped' }]);
    });
    const id = await submit(apiKey, { task, url: `${origin}/login`, integrations: [integration] });
    const run = await waitFor(apiKey, id, settled);
    assert.deepEqual([run.outcome, run.answer], ['completed', 'shipped'], JSON.stringify(run.reason));
    assert.deepEqual(mcp.calls.at(-1), { name: 'lookup_order', args: { text: '42' } });

    // The server's tools change after the run was submitted: the run is told at its start.
    const changedTask = 'Look up order 43';
    scripts.set(changedTask, (prompt) =>
      step([{ action: 'finish', success: prompt.includes('integration_changed'), answer: 'told' }]),
    );
    mcp.tools.push({ name: 'cancel_order', description: 'Cancels an order.' });
    const changed = await submit(apiKey, { task: changedTask, url: `${origin}/login`, integrations: [integration] });
    const changedRun = await waitFor(apiKey, changed, settled);
    assert.equal(changedRun.outcome, 'completed', 'the model read that the integration changed');
    assert.ok(
      (await eventsOf(apiKey, changed)).some((e) => e.kind === 'integration' && e.data?.code === 'integration_changed'),
    );
    mcp.tools.pop();

    // Connected again (its tools as they are), then deleted while a run holds it.
    const again = await api<{ integration: { id: string } }>(apiKey, 'POST', '/v1/integrations', {
      url: mcp.url,
      secret: 'MCP_TOKEN',
    });
    const goneTask = 'Look up order 44 later';
    let removed = false;
    scripts.set(goneTask, (prompt) => {
      if (!removed) return idle();
      if (!prompt.includes('the integration is gone'))
        return step([{ action: 'call_tool', tool: 'fake_mcp.lookup_order', arguments: '{"text":"44"}' }]);
      return step([{ action: 'finish', success: false, answer: 'gone' }]);
    });
    const gone = await submit(apiKey, {
      task: goneTask,
      url: `${origin}/login`,
      integrations: [again.body.integration.id],
    });
    await waitFor(apiKey, gone, (r) => r.status === 'running');
    assert.equal((await api(apiKey, 'DELETE', `/v1/integrations/${again.body.integration.id}`)).status, 200);
    removed = true;
    const goneRun = await waitFor(apiKey, gone, settled);
    assert.equal(goneRun.answer, 'gone');
    assert.ok(!mcp.calls.some((c) => (c.args as { text?: string }).text === '44'), 'no call reached the server');
  });
});
