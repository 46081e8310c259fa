// The bench's runner against a scripted stand-in of the agent API on
// loopback (the routes and shapes of POST /v1/agent and its reads): runs
// that solve their task in a real Chromium with the scripted solutions, a
// run that gives up, one that never ends and one that stops to ask. What
// the runner reports of each (generated tasks by single and multi act as
// well), and the submit latency of 50 at once with every run cancelled.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { solutions, startTaskSite, tasks } from './index.js';
import { type AgentEvent, type AgentRun, agentApi, percentile, runSuite, submitLatency, summarize } from './runner.js';
import type { TaskSite } from './site.js';

const KEY = 'sk_runner_test';
type Script = 'solve' | 'give-up' | 'hang' | 'ask';
const SCRIPTS: Record<string, Script> = {
  'radio-plan-billing': 'solve',
  'tabs-lamp-warranty': 'solve',
  'contact-damaged-order': 'give-up',
  'slow-exchange-rate': 'hang',
  'modal-delete-draft': 'ask',
};
/** Generated simple tasks, run apart from SCRIPTS' so the figures of the test above stay its own. */
const ACT_SCRIPTS: Record<string, Script> = { 'simple-tab-1': 'solve', 'simple-type-1': 'give-up' };

let site: TaskSite;
let browser: Browser;
let api: Server;
let apiUrl: string;
const runs = new Map<string, AgentRun & { events: AgentEvent[] }>();
const cancelled: string[] = [];

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** What the stand-in does with a run: the script of its task (an unknown task hangs). */
async function drive(run: AgentRun & { events: AgentEvent[] }, task: string, url: string) {
  const known = tasks.find((t) => t.task === task);
  const script = (known && (SCRIPTS[known.id] ?? ACT_SCRIPTS[known.id])) ?? 'hang';
  const now = () => new Date().toISOString();
  Object.assign(run, { status: 'running', startedAt: now() });
  if (script === 'hang') return;
  if (script === 'ask') return Object.assign(run, { status: 'paused', pausedFor: 'question', question: 'Which one?' });
  if (script === 'give-up')
    return Object.assign(run, {
      status: 'settled',
      outcome: 'failed',
      reason: { code: 'gave_up', message: 'no way forward' },
      finishedAt: now(),
    });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url);
    const answer = (await solutions[(known as { id: string }).id]?.(page)) ?? null;
    for (const step of [1, 2]) {
      const said = { step, outputTokens: 12 * step };
      run.events.push({ seq: run.events.length + 1, kind: 'step', message: `step ${step}`, data: said });
      const timing = {
        ...{ step, modelMs: 900 * step, overheadMs: 100, inputTokens: 1000, outputTokens: 50 },
        ...{ evaluatedInputTokens: 80 * step, queueMs: 10 * step },
      };
      run.events.push({ seq: run.events.length + 1, kind: 'timing', message: 'timing', data: timing });
    }
    Object.assign(run, {
      status: 'settled',
      outcome: 'completed',
      answer,
      steps: 2,
      tokens: { input: 2000, output: 100 },
      finishedAt: now(),
    });
  } finally {
    await context.close();
  }
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  let text = '';
  for await (const chunk of req) text += chunk;
  if (req.headers.authorization !== `Bearer ${KEY}`) return json(res, 401, { success: false, code: 'unauthorized' });
  const url = new URL(req.url ?? '/', apiUrl);
  const [, , , id, action] = url.pathname.split('/');
  if (req.method === 'POST' && url.pathname === '/v1/agent') {
    const body = JSON.parse(text) as { task: string; url: string };
    const run = {
      ...{ id: `run_${runs.size + 1}`, status: 'queued' as const, outcome: null, pausedFor: null, question: null },
      ...{ answer: null, reason: null, steps: 0, tokens: { input: 0, output: 0 }, events: [] as AgentEvent[] },
      ...{ createdAt: new Date().toISOString(), startedAt: null, finishedAt: null },
    };
    runs.set(run.id, run);
    json(res, 202, { success: true, id: run.id, run });
    drive(run, body.task, body.url).catch((err) =>
      Object.assign(run, { status: 'settled', outcome: 'failed', reason: { code: 'stand_in', message: String(err) } }),
    );
    return;
  }
  const run = runs.get(id ?? '');
  if (!run) return json(res, 404, { success: false, code: 'not_found' });
  if (req.method === 'GET' && !action) return json(res, 200, { success: true, run });
  if (req.method === 'GET' && action === 'events') {
    const after = Number(url.searchParams.get('after') ?? 0);
    const events = run.events.filter((e) => e.seq > after).slice(0, 3);
    return json(res, 200, { success: true, events, next: events.at(-1)?.seq ?? after });
  }
  if (req.method === 'POST' && action === 'cancel') {
    cancelled.push(run.id);
    if (run.status !== 'settled') Object.assign(run, { status: 'settled', outcome: 'cancelled', pausedFor: null });
    return json(res, 200, { success: true, run });
  }
  json(res, 404, { success: false, code: 'not_found' });
}

before(async () => {
  site = await startTaskSite({ slowMs: 200 });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  api = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  apiUrl = `http://127.0.0.1:${(api.address() as { port: number }).port}`;
});

after(async () => {
  api?.close();
  await browser?.close();
  await site?.close();
});

test('percentiles by nearest rank', () => {
  assert.equal(percentile([1, 2, 3, 4], 0.5), 2);
  assert.equal(percentile([1, 2, 3, 4], 0.99), 4);
  assert.ok(Number.isNaN(percentile([], 0.5)));
});

test('the runner reports solved, failed, timed-out and paused runs, and their step times', async () => {
  const ends = tasks.filter((t) => SCRIPTS[t.id] && SCRIPTS[t.id] !== 'hang');
  const hangs = tasks.filter((t) => SCRIPTS[t.id] === 'hang');
  const seen: string[] = [];
  const client = agentApi(apiUrl, KEY);
  // A generous timeout where runs end by themselves (the machine may be busy), a short one for the run that never does.
  const ending = await runSuite(client, site, ends, { concurrency: 3, timeoutMs: 60_000, pollMs: 50 }, (r) =>
    seen.push(r.id),
  );
  const hanging = await runSuite(client, site, hangs, { concurrency: 1, timeoutMs: 500, pollMs: 50 });
  const results = [...ending, ...hanging];
  assert.deepEqual(seen.toSorted(), [
    'contact-damaged-order',
    'modal-delete-draft',
    'radio-plan-billing',
    'tabs-lamp-warranty',
  ]);
  const by = Object.fromEntries(results.map((r) => [r.id, r]));
  for (const id of ['radio-plan-billing', 'tabs-lamp-warranty']) {
    assert.equal(by[id]?.ok, true, `${id}: ${by[id]?.why}`);
    assert.deepEqual(by[id]?.modelMs, [900, 1800]);
    assert.deepEqual(by[id]?.overheadMs, [100, 100]);
    assert.deepEqual(by[id]?.generatedTokens, [12, 24], "the step events' action tokens");
    assert.deepEqual(by[id]?.evaluatedTokens, [160], 'evaluated tokens after the first step');
    assert.deepEqual(by[id]?.queueMs, [10, 20]);
  }
  assert.equal(by['contact-damaged-order']?.ok, false);
  assert.equal(by['contact-damaged-order']?.reason, 'gave_up: no way forward');
  assert.equal(by['slow-exchange-rate']?.timedOut, true);
  assert.equal(by['slow-exchange-rate']?.outcome, 'cancelled');
  assert.match(by['modal-delete-draft']?.why ?? '', /^paused for question: Which one\?/);
  assert.deepEqual(cancelled.map((id) => runs.get(id)?.status).toSorted(), ['settled', 'settled']);

  const summary = summarize(results);
  assert.equal(summary.succeeded, 2);
  assert.equal(summary.successRate, 0.4);
  assert.equal(summary.timedOut, 1);
  assert.deepEqual(summary.byKind['checkbox-radio'], { tasks: 1, succeeded: 1 });
  assert.equal(summary.modelMsPerStep.mean, 1350);
  assert.deepEqual([summary.steps, summary.stepsTimed], [4, 4]);
  assert.equal(summary.overheadShare, 0.069);
  assert.deepEqual(summary.generatedTokensPerStep, { mean: 18, p50: 12, p99: 24 });
  assert.deepEqual(summary.evaluatedTokensPerStep, { mean: 160, p50: 160, p99: 160 });
  assert.deepEqual(summary.queueMsPerStep, { mean: 15, p50: 10, p99: 20 });
  assert.deepEqual(summary.tokens, { input: 4000, output: 200, inputPerTask: 800, outputPerTask: 40 });
});

test('generated tasks carry their acts into the results, and the summary counts single and multi apart', async () => {
  const chosen = tasks.filter((t) => ACT_SCRIPTS[t.id]);
  const results = await runSuite(agentApi(apiUrl, KEY), site, chosen, {
    concurrency: 2,
    timeoutMs: 60_000,
    pollMs: 50,
  });
  const by = Object.fromEntries(results.map((r) => [r.id, r]));
  assert.equal(by['simple-tab-1']?.acts, 'single');
  assert.equal(by['simple-tab-1']?.ok, true, by['simple-tab-1']?.why);
  assert.equal(by['simple-type-1']?.acts, 'multi');
  assert.equal(by['simple-type-1']?.ok, false);

  const fixed = await runSuite(
    agentApi(apiUrl, KEY),
    site,
    tasks.filter((t) => t.id === 'radio-plan-billing'),
    {
      ...{ concurrency: 1, timeoutMs: 60_000, pollMs: 50 },
    },
  );
  assert.equal(fixed[0]?.acts, undefined, 'a task without acts has none in its result');
  const summary = summarize([...results, ...fixed]);
  assert.deepEqual(summary.byActs, {
    single: { tasks: 1, succeeded: 1, successRate: 1 },
    multi: { tasks: 1, succeeded: 0, successRate: 0 },
  });
  assert.equal(summary.succeeded, 2, 'the task without acts counts in the whole');
  assert.deepEqual(summarize([]).byActs.single, { tasks: 0, succeeded: 0, successRate: null });
});

test('50 submits at once: latencies of each, every run cancelled as soon as it is accepted', async () => {
  cancelled.length = 0;
  const latency = await submitLatency(
    agentApi(apiUrl, KEY),
    { task: 'Open the page.', url: site.attempt().url('/recipes') },
    50,
  );
  assert.equal(latency.accepted, 50, JSON.stringify(latency.refused));
  assert.ok(latency.p50 > 0 && latency.p50 <= latency.p99 && latency.p99 <= latency.max);
  assert.equal(new Set(cancelled).size, 50);

  const refused = await submitLatency(agentApi(apiUrl, 'sk_wrong'), { task: 'Open the page.' }, 3);
  assert.deepEqual(refused.refused, { '401 unauthorized': 3 });
});
