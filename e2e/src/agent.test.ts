// Browser agent runs through the fleet (docs/agent.md), driven by a scripted
// model on loopback that speaks OpenAI's chat completions wire format: it
// reads the page the run presents (the indexed element list) and answers the
// step a model would. A loopback site records what the run did to it.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Fleet } from '@wap/fleet';
import { startFleet, until } from '@wap/testkit';
import { type FakeModel, type ModelRequest, modelReply, startFakeOpenAi } from '@wap/testsite';
import { call } from './api.js';

let fleet: Fleet;
let site: Server;
let origin: string;
let model: FakeModel;
/** What each test's script answers to a request (by the run's task, which is in every prompt). */
const scripts = new Map<string, (prompt: string, request: ModelRequest) => unknown>();
/** Form posts the site received, by path. */
const posts: { path: string; body: string; cookie: string }[] = [];

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', origin);
  const html = (status: number, text: string, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(text);
  if (req.method === 'POST') {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      posts.push({ path: url.pathname, body, cookie: req.headers.cookie ?? '' });
      const form = new URLSearchParams(body);
      if (url.pathname === '/login') {
        if (form.get('user') === 'ada' && form.get('password') === 'lovelace')
          return html(303, '', { location: '/orders', 'set-cookie': 'sid=ada; Path=/' });
        return html(200, page('Login', '<p>Wrong password</p>'));
      }
      html(200, page('Thanks', '<p>Received</p>'));
    });
    return;
  }
  if (url.pathname === '/login')
    return html(
      200,
      page(
        'Login',
        `<form method=post action=/login><label>User <input name=user></label>
         <label>Password <input name=password type=password></label><button>Sign in</button></form>`,
      ),
    );
  if (url.pathname === '/orders') {
    if (!req.headers.cookie?.includes('sid=ada')) return html(303, '', { location: '/login' });
    return html(
      200,
      page(
        'Orders',
        `<h1>Your orders</h1><table><tr><th>Order</th><th>Total</th></tr>
         <tr><td>A-1</td><td>12.50</td></tr><tr><td>A-2</td><td>7.00</td></tr></table>`,
      ),
    );
  }
  if (url.pathname === '/still')
    return html(
      200,
      page('Still', '<button onclick="void 0">Nothing happens</button><p>A page that never changes.</p>'),
    );
  html(200, page('Home', `<a href="/login">Sign in</a>`));
}

/** The index the element list gives the first line matching `pattern`. */
function indexOf(prompt: string, pattern: RegExp): number {
  for (const line of prompt.split('\n')) {
    const m = /\[(\d+)\]/.exec(line);
    if (m && pattern.test(line)) return Number(m[1]);
  }
  throw new Error(`no element matches ${pattern} in:\n${prompt}`);
}

const step = (actions: unknown[], plan: string[] = []) => ({ evaluation: '', memory: '', plan, actions });

const promptOf = (request: ModelRequest): string =>
  (request.body?.messages ?? [])
    .filter((m: { role: string }) => m.role === 'user')
    .map((m: { content: unknown }) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');

before(async () => {
  site = createServer(handle);
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  model = await startFakeOpenAi({
    reply: (request) => {
      const prompt = promptOf(request);
      const task = /^Task: (.*)$/m.exec(prompt)?.[1] ?? '';
      const script = scripts.get(task);
      if (!script) return modelReply.fail(400);
      return script(prompt, request);
    },
  });
  fleet = await startFleet({
    env: {
      EGRESS_ALLOW: '127.0.0.0/8',
      SESSION_WARM: '1',
      SESSION_CAPACITY: '8',
      AGENT_MODELS: JSON.stringify([{ name: 'scripted', kind: 'openai', baseUrl: model.url, model: 'scripted-1' }]),
      AGENT_DEFAULT_MODEL: 'scripted',
      AGENT_POLL_MS: '200',
    },
  });
});

after(async () => {
  await fleet?.stop();
  await fleet?.dropDatabases();
  await model?.close();
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
  steps: number;
  plan: string[];
  usage: { credits: number; meters: Record<string, number> };
}

const submit = (key: string, body: Record<string, unknown>) =>
  call<{ id: string; run: Run; code?: string }>(fleet.gatewayUrl, 'POST', '/v1/agent', { key, body });
const read = async (key: string, id: string) =>
  (await call<{ run: Run }>(fleet.gatewayUrl, 'GET', `/v1/agent/${id}`, { key })).body.run;
/** The run once `done` says so (settled by default). */
async function waitRun(key: string, id: string, done: (run: Run) => boolean = (r) => r.status === 'settled') {
  let last: Run | undefined;
  await until(
    `run ${id} to reach the state the test waits for`,
    async () => {
      last = await read(key, id);
      return done(last);
    },
    90_000,
  );
  return last as Run;
}

describe('an agent run', () => {
  test('signs in, appends records and finishes with an answer in its schema; bills what it used', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const task = 'Sign in as ada (password lovelace) and list my orders';
    scripts.set(task, (prompt) => {
      if (prompt.includes(`Page: ${origin}/login`))
        return step(
          [
            { action: 'type', index: indexOf(prompt, /name=user/), text: 'ada', submit: false },
            { action: 'type', index: indexOf(prompt, /name=password/), text: 'lovelace', submit: true },
          ],
          ['sign in', 'read the orders'],
        );
      if (prompt.includes('/orders') && !prompt.includes('record: saved'))
        return step([
          { action: 'record', json: '{"order":"A-1","total":12.5}' },
          { action: 'record', json: '{"order":"A-2","total":7}' },
        ]);
      return step([{ action: 'finish', success: true, answer: { orders: 2, total: 19.5 } }]);
    });
    const submitted = await submit(apiKey, {
      task,
      url: `${origin}/login`,
      outputSchema: {
        type: 'object',
        properties: { orders: { type: 'integer' }, total: { type: 'number' } },
        required: ['orders', 'total'],
      },
    });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    assert.equal(submitted.body.run.status, 'queued');
    const run = await waitRun(apiKey, submitted.body.id);
    assert.equal(run.outcome, 'completed', JSON.stringify(run));
    assert.deepEqual(run.answer, { orders: 2, total: 19.5 });
    assert.deepEqual(run.plan, ['sign in', 'read the orders']);
    assert.ok(
      posts.some((p) => p.path === '/login' && p.body.includes('user=ada')),
      'the form was posted',
    );

    const results = await call<{ data: { seq: number; record: unknown }[]; nextCursor: string | null }>(
      fleet.gatewayUrl,
      'GET',
      `/v1/agent/${run.id}/results`,
      { key: apiKey },
    );
    assert.deepEqual(
      results.body.data.map((r) => r.record),
      [
        { order: 'A-1', total: 12.5 },
        { order: 'A-2', total: 7 },
      ],
    );
    assert.equal(results.body.nextCursor, null);

    const events = await call<{ events: { seq: number; kind: string; level: string }[] }>(
      fleet.gatewayUrl,
      'GET',
      `/v1/agent/${run.id}/events?level=debug`,
      { key: apiKey },
    );
    const seqs = events.body.events.map((e) => e.seq);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
      'one sequence without gaps or doubles',
    );
    const kinds = events.body.events.map((e) => e.kind);
    for (const kind of ['status', 'plan', 'step', 'record', 'page', 'timing']) assert.ok(kinds.includes(kind), kind);

    // Pages: the login page and the orders page (the redirect's target); time metered; tokens at zero.
    assert.equal(run.usage.meters.page_load, 2, JSON.stringify(run.usage));
    assert.ok((run.usage.meters.agent_seconds ?? 0) >= 1);
    assert.equal(run.usage.meters.agent_seconds, run.usage.meters.context_seconds);
    assert.ok((run.usage.meters.tokens ?? 0) > 0);
    // The ledger's usage for the workspace is exactly what the run reports: every meter and every credit.
    const usage = await call<{ total: { credits: number; meters: Record<string, number> } }>(
      fleet.gatewayUrl,
      'GET',
      '/v1/usage',
      { key: apiKey },
    );
    assert.deepEqual(usage.body.total, run.usage);

    // Its browser is a recorded session of kind agent.
    assert.ok(run.sessionId);
    let session: { task: { kind: string; run?: string }; status: string } | undefined;
    await until("the run's session to be recorded as ended", async () => {
      const s = await call<{ session: { task: { kind: string; run?: string }; status: string } }>(
        fleet.gatewayUrl,
        'GET',
        `/v1/sessions/${run.sessionId}`,
        { key: apiKey },
      );
      session = s.body.session;
      return s.status === 200 && session.status === 'ended';
    });
    assert.deepEqual(session?.task, { kind: 'agent', run: run.id });
  });
});
