// One step of a run with every system the loop composes, against real
// Postgres, real Chromium on loopback pages and a model served over the
// OpenAI wire format on loopback (the real client): what the model is shown,
// its actions passed through the gates to their systems, the same action on
// the same page ending the run, unusable answers counted against the failure
// budget, a refused key, and a take-over that stops the model call in flight.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import { type FakeModel, type ModelRequest, modelReply, startFakeOpenAi } from '@wap/testsite';
import { serveTestPages, type TestServer } from '../../browser/test-support.js';
import { compileRules } from '../../domain/rules/compile.js';
import { OpenAiCompatibleClient } from '../../model/openai.js';
import { type SystemsFixture, startTestRun, systemsFixture } from '../../test-support.js';
import { runSystems } from '../run-loop.js';
import { type RunContext, Stop } from './context.js';

const KEY = 'sk-test-step-0123456789';
const workspaceId = randomUUID();
let fx: SystemsFixture;
let pages: { site: TestServer; other: TestServer };
let model: FakeModel;
/** What the model answers, by the run's task. */
const scripts = new Map<string, (request: ModelRequest) => unknown>();
let fee = '';

/** The text of a request's user message: what the run showed the model. */
const promptOf = (request: ModelRequest | undefined): string =>
  String((request?.body?.messages ?? []).find((m: { role: string }) => m.role === 'user')?.content ?? '');

const step = (actions: unknown[], plan: string[] = []) => ({ evaluation: '', memory: '', plan, actions });

before(async () => {
  fx = await systemsFixture();
  pages = await serveTestPages();
  model = await startFakeOpenAi({
    apiKey: KEY,
    reply: (request) => {
      // A step says its task first; an answer check asked alone asks it as its question.
      const task = /^(?:Task|Question): (.*)$/m.exec(promptOf(request))?.[1] ?? '';
      return (scripts.get(task) ?? (() => modelReply.fail(500)))(request);
    },
  });
  // What the article says of the fee is this workspace's secret.
  const secret = await fx.stores.secrets.create(workspaceId, {
    handle: 'fee',
    domains: ['127.0.0.1'],
    value: { kind: 'env', value: '42 kroner' },
  });
  fee = secret?.id ?? '';
  await fx.stores.rules.set(workspaceId, compileRules(['Never visit facebook.com']));
});

afterEach(() => fx.release());

after(async () => {
  await model.close();
  await pages.site.close();
  await pages.other.close();
  await fx.close();
});

/** A run of `task` on `path`, granted the secret `fee`, with every system on a Chromium of its own. */
async function stepRun(
  task: string,
  path: string,
  options: { apiKey?: string; profile?: 'compact'; stepProfile?: string; outputSchema?: Record<string, unknown> } = {},
) {
  const run = await startTestRun(fx.stores, workspaceId, {
    run: {
      task,
      maxSteps: 10,
      ...(options.stepProfile && { stepProfile: options.stepProfile }),
      ...(options.outputSchema && { outputSchema: options.outputSchema }),
    },
    grants: { secrets: [{ handle: 'fee', id: fee }], integrations: [], purchases: undefined },
    sessionId: randomUUID(),
  });
  const systems = runSystems(run, fx.systemDeps());
  await fx.connect(systems.browser);
  await systems.browser.startPage(`${pages.site.origin}${path}`);
  const client = new OpenAiCompatibleClient({
    name: 'scripted',
    baseUrl: model.url,
    apiKey: options.apiKey ?? KEY,
    model: 'scripted-1',
    mode: 'json_schema',
    backoffMs: 20,
    ...(options.profile && { profile: options.profile }),
  });
  const grants = { ...run.policy.stepGrants(true) };
  return { run, systems, next: () => systems.steps.step(client, grants) };
}

/** The last user message of a request: the done question, when it is one. */
const lastPromptOf = (request: ModelRequest): string =>
  String((request.body?.messages ?? []).filter((m: { role: string }) => m.role === 'user').at(-1)?.content ?? '');
const isDoneQuestion = (request: ModelRequest) =>
  lastPromptOf(request).includes('now complete, with nothing left to do?');
/** The step schema's actions of a request, by name: what the model was offered. */
function offered(request: ModelRequest | undefined): Map<string, Record<string, unknown>[]> {
  // The compact step's anyOf, under the one key the client puts a schema that is not an object under.
  const schema = request?.body?.response_format?.json_schema?.schema?.properties?.step as {
    anyOf?: Record<string, unknown>[];
  };
  const out = new Map<string, Record<string, unknown>[]>();
  for (const a of schema?.anyOf ?? []) {
    const props = a.properties as Record<string, { const?: string }>;
    const name = String(props.action?.const);
    out.set(name, [...(out.get(name) ?? []), props]);
  }
  return out;
}

const requestsOf = (task: string) => model.requests.filter((r) => promptOf(r).startsWith(`Task: ${task}\n`));
const kindsOf = async (run: RunContext) =>
  (await fx.stores.store.events(run.row.id, ['summary', 'step', 'debug'], 0n, 200)).map((e) => e.kind);

describe('StepSystem', () => {
  test('shows the model the page without a secret value, and hands each action through the gates to its system', async () => {
    const task = 'Read the fee and keep it';
    scripts.set(task, () =>
      step(
        [
          { action: 'navigate', url: 'https://facebook.com/' },
          { action: 'extract', query: 'What is the shipping fee to Norway?' },
          { action: 'record', json: '{"fee":"read"}' },
        ],
        ['read the fee', 'record it'],
      ),
    );
    const { run, next } = await stepRun(task, '/article');
    await next();
    const prompt = promptOf(requestsOf(task)[0]);
    assert.match(prompt, /Secrets you may fill .*\n- fee \(env\)/);
    assert.match(prompt, /Never visit facebook\.com/, 'the rules are stated');
    assert.doesNotMatch(prompt, /42 kroner/);
    assert.equal(run.steps, 1);
    assert.deepEqual(run.plan, ['read the fee', 'record it']);
    assert.deepEqual(run.memory.results, [
      'navigate https://facebook.com/: blocked by the workspace rule "Never visit facebook.com": facebook.com is on facebook.com, which is forbidden',
      'extract "What is the shipping fee to Norway?": extracted 51 characters (1 of 122 paragraphs) for "What is the shipping fee to Norway?"',
      'record: saved as #1',
    ]);
    assert.match(run.memory.extracted ?? '', /\[secret fee\]/);
    const kinds = await kindsOf(run);
    for (const kind of ['plan', 'step', 'blocked', 'finding', 'record', 'timing'])
      assert.ok(kinds.includes(kind), kind);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual(
      [row?.steps, (row?.memory as { failures?: number } | undefined)?.failures],
      [1, 0],
      'the progress is kept',
    );
  });

  test('the same action on the same page is a nudge at the third time, and ends the run at the fifth', async () => {
    const task = 'Scroll forever';
    scripts.set(task, () => step([{ action: 'scroll', direction: 'down' }]));
    const { run, next } = await stepRun(task, '/choices');
    for (const n of [1, 2, 3, 4]) {
      await next();
      if (n === 3)
        assert.match(run.memory.nudge ?? '', /You did "scroll down" 3 times on the same page without effect/);
    }
    await assert.rejects(next(), Stop);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.reasonCode], ['failed', 'loop_detected']);
  });

  test('an answer that is not a step is told to the model; five in a row end the run', async () => {
    const task = 'Answer badly';
    scripts.set(task, () => ({ evaluation: 'no actions here' }));
    const { run, next } = await stepRun(task, '/choices');
    for (let n = 1; n < 5; n++) await next();
    assert.equal(run.memory.failures, 4);
    assert.match(promptOf(requestsOf(task).at(-1)), /Note: Your last answer could not be used/);
    await assert.rejects(next(), Stop);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual(
      [row?.reasonCode, row?.reasonMessage],
      ['too_many_failures', '5 steps in a row achieved nothing.'],
    );
  });

  test('a model that refuses the key ends the run with model_error', async () => {
    const task = 'Use a wrong key';
    scripts.set(task, () => step([{ action: 'scroll', direction: 'down' }]));
    const { run, next } = await stepRun(task, '/choices', { apiKey: 'sk-not-the-key-000000000' });
    await assert.rejects(next(), Stop);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.reasonCode], ['failed', 'model_error']);
  });

  test('a person taking over stops the model call in flight; the step counts for nothing', async () => {
    const task = 'Think while a person takes over';
    scripts.set(task, () => modelReply.stall());
    const { run, next } = await stepRun(task, '/choices');
    const stepping = next();
    await until('the model to be asked', async () => requestsOf(task).length > 0);
    await fx.stores.pauses.control(workspaceId, run.row.id, true);
    await run.renew();
    await stepping;
    assert.deepEqual([run.steps, run.memory.failures], [0, 0]);
  });

  test('compact: one action over what the page allows; a single act asked "done?" and finished on yes', async () => {
    const task = 'Accept the conditions';
    scripts.set(task, (request) => {
      if (isDoneQuestion(request)) return { done: 'yes' };
      return { step: { action: 'click', target: 'I agree' } };
    });
    const { run, next } = await stepRun(task, '/choices', { profile: 'compact' });
    await assert.rejects(next(), Stop);
    const [first, question] = requestsOf(task);
    const prompt = promptOf(first);
    assert.match(prompt, /^select "country" value="Germany" options: Germany \| France \| Norway$/m);
    assert.match(prompt, /^checkbox "I agree" unchecked$/m);
    const actions = offered(first);
    assert.deepEqual(actions.get('click')?.[0]?.target, { enum: ['I agree'] }, "only the page's elements, no select");
    assert.equal(actions.has('type'), false, 'no text box, no type');
    assert.deepEqual(actions.get('select')?.[0]?.target, { const: 'country' });
    assert.deepEqual(actions.get('select')?.[0]?.option, { enum: ['Germany', 'France', 'Norway'] });
    assert.ok(question && isDoneQuestion(question), 'the done question follows the act');
    assert.match(lastPromptOf(question), /You did: clicked checkbox "I agree"; "I agree" is now checked/);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.steps], ['completed', 1]);
    const kinds = await kindsOf(run);
    assert.ok(kinds.includes('done_check'), 'the question is an event');
  });

  test('compact: an act done twice before from the same page, between others (a toggle), is refused a third time', async () => {
    const task = 'Make the answer react';
    scripts.set(task, (request) =>
      isDoneQuestion(request) ? { done: 'no' } : { step: { action: 'click', target: 'Shipping?' } },
    );
    const { run, next } = await stepRun(task, '/toggle', { profile: 'compact' });
    for (let i = 0; i < 4; i++) await next();
    assert.equal(run.memory.refusals ?? 0, 0, 'four clicks, each opened or closed the answer');
    await next();
    assert.equal(run.memory.refusals, 1, 'the fifth, a third from the closed page, is refused');
    assert.match(run.memory.results[0] ?? '', /not done again, it was done from this same page 2 times/);
  });

  test('compact: a third blind repeat is refused and not offered again; a second refusal ends the run', async () => {
    const task = 'Make the page react';
    scripts.set(task, (request) => {
      if (isDoneQuestion(request)) return { done: 'no' };
      return { step: { action: 'click', target: 'Outer' } };
    });
    const { run, next } = await stepRun(task, '/frames', { profile: 'compact' });
    await next();
    await next();
    assert.equal(run.memory.refusals ?? 0, 0);
    await next();
    assert.equal(run.memory.refusals, 1, 'the third is refused');
    assert.match(run.memory.results[0] ?? '', /not done again, it changed nothing the last 2 times/);
    await assert.rejects(next(), Stop);
    const fourth = requestsOf(task).filter((r) => !isDoneQuestion(r))[3];
    assert.ok(fourth, 'a fourth step was asked');
    const clicks = (offered(fourth).get('click')?.[0]?.target as { enum: string[] } | undefined)?.enum ?? [];
    assert.ok(!clicks.includes('Outer'), 'the refused click is not offered');
    assert.ok(offered(fourth).has('finish'), 'what else the page allows still is');
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.reasonCode], ['failed', 'loop_detected']);
  });

  test('a model with no capacity (429) makes the run wait, saying decode_unavailable, not fail', async () => {
    const task = 'Wait for a busy model';
    scripts.set(task, () => modelReply.fail(429, { headers: { 'retry-after': '1' } }));
    const { run, next } = await stepRun(task, '/choices');
    for (let n = 0; n < 6; n++) await next();
    assert.deepEqual([run.steps, run.memory.failures, run.memory.capacityWaits], [0, 0, 6], 'six waits, no failure');
    const waits = (await fx.stores.store.events(run.row.id, ['step'], 0n, 200)).filter((e) => e.kind === 'waiting');
    assert.equal(waits.length, 6);
    const data = waits[0]?.data as { code?: string; retryAfterSeconds?: number } | undefined;
    assert.deepEqual([data?.code, data?.retryAfterSeconds], ['decode_unavailable', 1]);
    const row = await fx.stores.store.byId(run.row.id);
    assert.equal(row?.status, 'running', 'the run goes on');
  });

  test('compact: an act that names every part of the task finishes the run, unasked', async () => {
    const task = 'Pick France and tick I agree';
    scripts.set(task, (request) => {
      const prompt = promptOf(request);
      if (!/I agree" checked/.test(prompt) && /Next part/.test(prompt))
        return { step: { action: 'click', target: 'I agree' } };
      return { step: { action: 'select', target: 'country', option: 'France' } };
    });
    const { run, next } = await stepRun(task, '/choices', { profile: 'compact' });
    await next();
    assert.deepEqual(run.memory.partsDone, [0]);
    assert.match(promptOf(requestsOf(task).at(-1)), /Parts: 1\) Pick France 2\) tick I agree/);
    await assert.rejects(next(), Stop);
    assert.match(promptOf(requestsOf(task).at(-1)), /\nNext part: tick I agree\nIt names: checkbox "I agree"$/);
    assert.equal(requestsOf(task).filter(isDoneQuestion).length, 0, 'not asked');
    assert.deepEqual(run.memory.typed, ['France', 'I agree'], 'the option chosen, the name of the box ticked');
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.steps], ['completed', 2]);
    assert.match(String(row?.answer), /^Done: chose "France" in select "country"; clicked checkbox "I agree"$/);
  });

  test('the lab arm compact-plan: compact steps for a full model, the plan stated once and read every step', async () => {
    const task = 'Accept the conditions, the plan first';
    const PLAN = 'Tick I agree, then finish.';
    scripts.set(task, (request) => {
      if (request.body?.response_format?.json_schema?.name === 'compact_plan') return { plan: `  ${PLAN}\n` };
      if (isDoneQuestion(request)) return { done: 'no' };
      if (/"I agree" checked/.test(promptOf(request)))
        return { step: { action: 'finish', success: true, answer: 'accepted' } };
      return { step: { action: 'click', target: 'I agree' } };
    });
    // The model's own profile is full: the run's ask wins.
    const { run, next } = await stepRun(task, '/choices', { stepProfile: 'compact-plan' });
    await next();
    // The first finish is refused: no act named the part "Accept the conditions".
    await next();
    await assert.rejects(next(), Stop);
    const asked = requestsOf(task);
    const plans = asked.filter((r) => r.body?.response_format?.json_schema?.name === 'compact_plan');
    assert.equal(plans.length, 1, 'the plan is asked once');
    assert.match(promptOf(plans[0]), /In one short sentence, the steps you will take/);
    const steps = asked.filter((r) => !isDoneQuestion(r) && !plans.includes(r));
    assert.equal(steps.length, 3);
    for (const s of steps) {
      assert.match(promptOf(s), new RegExp(`^Your plan: ${PLAN.replace('.', '\\.')}$`, 'm'), 'every step reads it');
      assert.ok(offered(s).has('click') || offered(s).has('finish'), 'a compact step');
    }
    assert.deepEqual(run.plan, [PLAN]);
    const events = await fx.stores.store.events(run.row.id, ['summary', 'step'], 0n, 200);
    assert.deepEqual(
      events.filter((e) => e.kind === 'step').map((e) => (e.data as { profile?: string }).profile),
      ['compact-plan', 'compact-plan', 'compact-plan'],
      'its steps say the arm',
    );
    assert.deepEqual((events.find((e) => e.kind === 'plan')?.data as { plan?: string[] } | undefined)?.plan, [PLAN]);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.answer, row?.plan], ['completed', 'accepted', [PLAN]]);
  });

  test('compact: a tab that shows its panel finishes a task of one act, unasked', async () => {
    const task = 'Open the “Reviews” tab.';
    scripts.set(task, (request) =>
      isDoneQuestion(request) ? { done: 'no' } : { step: { action: 'click', target: 'Reviews' } },
    );
    const { run, next } = await stepRun(task, '/tab-strip', { profile: 'compact' });
    await assert.rejects(next(), Stop);
    assert.equal(requestsOf(task).filter(isDoneQuestion).length, 0, 'not asked: the panel is what it chose');
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.steps], ['completed', 1]);
  });

  test('compact: a question whose answer an act brought onto the page is answered from it, and the run ends', async () => {
    const task = 'What does the Reviews tab say?';
    const isAnswerCheck = (request: ModelRequest) => lastPromptOf(request).includes('If this text answers it');
    scripts.set(task, (request) => {
      if (isAnswerCheck(request))
        return { answer: lastPromptOf(request).includes('No reviews yet.') ? 'No reviews yet' : '' };
      return { step: { action: 'click', target: 'Reviews' } };
    });
    const { run, next } = await stepRun(task, '/tab-strip', { profile: 'compact' });
    await assert.rejects(next(), Stop);
    const checks = requestsOf(task).filter(isAnswerCheck);
    assert.equal(checks.length, 1);
    // The question reads only what the act brought, whole.
    assert.match(
      lastPromptOf(checks[0] as ModelRequest),
      /The page now also says:\nNo reviews yet\.\nQuestion: What does/,
    );
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.steps, row?.answer], ['completed', 1, 'No reviews yet']);
    const events = await fx.stores.store.events(run.row.id, ['step'], 0n, 200);
    assert.ok(events.some((e) => e.kind === 'answer_check' && /"No reviews yet"/.test(e.message)));
  });

  test('compact: a question answered by the page a send leads to is answered from it', async () => {
    const task = 'Search for Norway and tell me the headline';
    const isAnswerCheck = (request: ModelRequest) => lastPromptOf(request).includes('If this text answers it');
    scripts.set(task, (request) => {
      if (isAnswerCheck(request))
        return { answer: lastPromptOf(request).includes('\nHarbour news\n') ? 'Harbour news' : '' };
      return /"Query" value="Norway"/.test(promptOf(request))
        ? { step: { action: 'click', target: 'Send' } }
        : { step: { action: 'type', target: 'Query', text: 'Norway' } };
    });
    const { run, next } = await stepRun(task, '/send-form', { profile: 'compact' });
    await next();
    await assert.rejects(next(), Stop);
    assert.equal(requestsOf(task).filter(isAnswerCheck).length, 1, 'after the send: the text typed brought none');
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.steps, row?.answer], ['completed', 2, 'Harbour news']);
  });

  test('compact: a run with an output schema is answered in its shape from the page an act brought', async () => {
    const task = 'Search for Norway and give me the page title';
    const outputSchema = {
      type: 'object',
      properties: { title: { type: 'string' } },
      required: ['title'],
      additionalProperties: false,
    };
    const isAnswerCheck = (request: ModelRequest) =>
      lastPromptOf(request).includes('Answer as {"title": string} from this text');
    scripts.set(task, (request) => {
      if (isAnswerCheck(request))
        return {
          step: lastPromptOf(request).includes('\nHarbour news\n') ? { title: 'Harbour news' } : { none: 'yes' },
        };
      return /"Query" value="Norway"/.test(promptOf(request))
        ? { step: { action: 'click', target: 'Send' } }
        : { step: { action: 'type', target: 'Query', text: 'Norway' } };
    });
    const { run, next } = await stepRun(task, '/send-form', { profile: 'compact', outputSchema });
    await next();
    await assert.rejects(next(), Stop);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.steps, row?.answer], ['completed', 2, { title: 'Harbour news' }]);
  });

  test('compact: a finish with a part not done is refused once, the part said; a second is taken', async () => {
    const task = 'Write Tora and press Send';
    scripts.set(task, () => ({ step: { action: 'finish', success: true, answer: 'done' } }));
    const { run, next } = await stepRun(task, '/send-form', { profile: 'compact' });
    await next();
    assert.notEqual((await fx.stores.store.byId(run.row.id))?.status, 'settled', 'the first finish is refused');
    await assert.rejects(next(), Stop);
    const said = requestsOf(task).map(promptOf);
    assert.match(said[1] ?? '', /\nNote: Not finished: "Write Tora" is not done yet\. Do it, then finish\./);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.steps], ['completed', 2]);
  });

  test('compact: a finish with what was typed never sent is refused once; the second is taken', async () => {
    const task = 'Have Tora searched for';
    scripts.set(task, (request) => {
      if (isDoneQuestion(request)) return { done: 'no' };
      return /"Query" value="Tora"/.test(promptOf(request))
        ? { step: { action: 'finish', success: true, answer: 'done' } }
        : { step: { action: 'type', target: 'Query', text: 'Tora' } };
    });
    const { run, next } = await stepRun(task, '/send-form', { profile: 'compact' });
    await next();
    await next();
    assert.notEqual((await fx.stores.store.byId(run.row.id))?.status, 'settled', 'the first finish is refused');
    await assert.rejects(next(), Stop);
    assert.match(promptOf(requestsOf(task).at(-1)), /\nNote: Not finished: what you entered is not sent yet\./);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.steps], ['completed', 3]);
  });

  test('compact: an answer check giving a number the page does not write is not taken; the run goes on', async () => {
    const task = 'Search for Norway and say how many results there are';
    const outputSchema = {
      type: 'object',
      properties: { results: { type: 'integer' } },
      required: ['results'],
      additionalProperties: false,
    };
    const isAnswerCheck = (request: ModelRequest) => lastPromptOf(request).includes('Answer as {"results":');
    scripts.set(task, (request) => {
      if (isAnswerCheck(request)) return { step: { results: 7 } };
      const prompt = promptOf(request);
      if (/Last action: clicked button "Send"/.test(prompt))
        return { step: { action: 'finish', success: true, answer: { results: 1 } } };
      return /"Query" value="Norway"/.test(prompt)
        ? { step: { action: 'click', target: 'Send' } }
        : { step: { action: 'type', target: 'Query', text: 'Norway' } };
    });
    const { run, next } = await stepRun(task, '/send-form', { profile: 'compact', outputSchema });
    await next();
    await next();
    assert.notEqual((await fx.stores.store.byId(run.row.id))?.status, 'settled', 'the answer check is not taken');
    const checks = (await fx.stores.store.events(run.row.id, ['step'], 0n, 200)).filter(
      (e) => e.kind === 'answer_check',
    );
    assert.match(checks.at(-1)?.message ?? '', /no \(\{"results":7\} is not on it\)/);
    await assert.rejects(next(), Stop);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.steps, row?.answer], ['completed', 3, { results: 1 }]);
  });

  test('compact: a finish with a number the page does not show is refused once; the second is taken', async () => {
    const task = 'Tell me the exchange rate';
    const outputSchema = {
      type: 'object',
      properties: { rate: { type: 'number' } },
      required: ['rate'],
      additionalProperties: false,
    };
    scripts.set(task, () => ({ step: { action: 'finish', success: true, answer: { rate: 0.85 } } }));
    const { run, next } = await stepRun(task, '/send-form', { profile: 'compact', outputSchema });
    await next();
    assert.notEqual((await fx.stores.store.byId(run.row.id))?.status, 'settled', 'the first finish is refused');
    await assert.rejects(next(), Stop);
    assert.match(promptOf(requestsOf(task).at(-1)), /\nNote: Not finished: the page does not show \{"rate":0\.85\}\./);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.steps, row?.answer], ['completed', 2, { rate: 0.85 }]);
  });

  test('compact: a finish whose lists are all empty is refused once; the second is taken', async () => {
    const task = 'List the people on this page';
    const outputSchema = {
      type: 'object',
      properties: { people: { type: 'array', items: { type: 'string' } } },
      required: ['people'],
      additionalProperties: false,
    };
    scripts.set(task, () => ({ step: { action: 'finish', success: true, answer: { people: [] } } }));
    const { run, next } = await stepRun(task, '/send-form', { profile: 'compact', outputSchema });
    await next();
    assert.notEqual((await fx.stores.store.byId(run.row.id))?.status, 'settled', 'the first finish is refused');
    await assert.rejects(next(), Stop);
    assert.match(promptOf(requestsOf(task).at(-1)), /\nNote: Not finished: your answer lists nothing\./);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.steps, row?.answer], ['completed', 2, { people: [] }]);
  });

  test('compact: Enter that sends the form does the part that says to press its button', async () => {
    const task = 'Type Tora and press Send';
    scripts.set(task, (request) => {
      if (isDoneQuestion(request)) return { done: 'no' };
      return /"Query" value="Tora"/.test(promptOf(request))
        ? { step: { action: 'press', key: 'Enter' } }
        : { step: { action: 'type', target: 'Query', text: 'Tora' } };
    });
    const { run, next } = await stepRun(task, '/send-form', { profile: 'compact' });
    await next();
    await assert.rejects(next(), Stop);
    assert.equal(requestsOf(task).filter(isDoneQuestion).length, 0, 'not asked: every part is done');
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.steps], ['completed', 2]);
  });

  test('compact: a send the page refused is not the task done; its words are said once and the run fixes it', async () => {
    const task = 'Type Tora and press Send';
    scripts.set(task, (request) => {
      if (isDoneQuestion(request)) return { done: 'no' };
      const prompt = promptOf(request);
      if (/The page refused what was sent: Enter your full name\./.test(prompt))
        return { step: { action: 'type', target: 'Full name', text: 'Tora Lund' } };
      if (/"Full name" value="Tora Lund"/.test(prompt) || /"Query" value="Tora"/.test(prompt))
        return { step: { action: 'click', target: 'Send' } };
      return { step: { action: 'type', target: 'Query', text: 'Tora' } };
    });
    const { run, next } = await stepRun(task, '/refusing-form', { profile: 'compact' });
    await next();
    await next();
    assert.notEqual(
      (await fx.stores.store.byId(run.row.id))?.status,
      'settled',
      'every part done, but the page said no',
    );
    await next();
    await assert.rejects(next(), Stop);
    const said = requestsOf(task).map(promptOf);
    assert.equal(said.filter((p) => p.includes('The page refused what was sent')).length, 1, 'said once');
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.steps], ['completed', 4]);
  });

  test('compact: a part a refused send did is to do again: the values entered after it finish nothing', async () => {
    const task = 'Send the form as Tora Lund';
    scripts.set(task, (request) => {
      if (isDoneQuestion(request)) return { done: 'no' };
      const prompt = promptOf(request);
      if (/"Full name" value="Tora Lund"/.test(prompt)) return { step: { action: 'click', target: 'Send' } };
      if (/The page refused what was sent/.test(prompt))
        return { step: { action: 'type', target: 'Full name', text: 'Tora Lund' } };
      return { step: { action: 'click', target: 'Send' } };
    });
    const { run, next } = await stepRun(task, '/refusing-form', { profile: 'compact' });
    await next();
    assert.deepEqual(run.memory.partsDone ?? [], [], 'the refused send did the part for nothing');
    await next();
    assert.notEqual((await fx.stores.store.byId(run.row.id))?.status, 'settled', 'typed, not sent: not done');
    await assert.rejects(next(), Stop);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.steps], ['completed', 3]);
  });

  test('compact: a combobox that took two values at once and lists nothing is all the next step may type into', async () => {
    const task = 'Tag it with billing and urgent, then press Save';
    scripts.set(task, (request) =>
      isDoneQuestion(request) ? { done: 'no' } : { step: { action: 'type', target: 'Tags', text: 'billing urgent' } },
    );
    const { next } = await stepRun(task, '/tag-box', { profile: 'compact' });
    await next();
    await next().catch(() => {});
    const asked = requestsOf(task).filter((r) => !isDoneQuestion(r));
    assert.match(promptOf(asked[1] as ModelRequest), /type one value at a time, "billing"/);
    const actions = offered(asked[1]);
    assert.deepEqual([...actions.keys()], ['type'], 'nothing but typing again: not Save');
    assert.deepEqual(
      actions.get('type')?.map((a) => (a.target as { const?: string }).const),
      ['Tags'],
    );
  });

  test('compact: a section the run opened is not offered again: a second click would close its answer', async () => {
    const task = 'Read the answer on paying later and note it';
    scripts.set(task, (request) =>
      isDoneQuestion(request) ? { done: 'no' } : { step: { action: 'click', target: 'Can I pay later?' } },
    );
    const { next } = await stepRun(task, '/faq', { profile: 'compact' });
    await next();
    await next().catch(() => {});
    const asked = requestsOf(task).filter((r) => r.body?.response_format?.json_schema?.name === 'compact_step');
    assert.match(lastPromptOf(asked[1] as ModelRequest), /Yes, within 30 days of the invoice\./);
    const clicks = (offered(asked[1]).get('click') ?? []).flatMap(
      (a) => (a.target as { enum?: string[] }).enum ?? [(a.target as { const?: string }).const],
    );
    assert.ok(clicks.includes('Do you ship abroad?'), JSON.stringify(clicks));
    assert.ok(!clicks.includes('Can I pay later?'), 'the opened section is kept open');
  });

  test('compact: a send its server refuses again with the same words is refused again, not the task done', async () => {
    const task = 'Enter Tora and press Send';
    scripts.set(task, (request) => {
      if (isDoneQuestion(request)) return { done: 'no' };
      return /"Query" value="Tora"/.test(promptOf(request)) || /refused/.test(promptOf(request))
        ? { step: { action: 'click', target: 'Send' } }
        : { step: { action: 'type', target: 'Query', text: 'Tora' } };
    });
    const { run, next } = await stepRun(task, '/posting-form', { profile: 'compact' });
    await next();
    await next();
    assert.deepEqual(run.memory.pageRefused, ['Enter your full name.']);
    await next();
    const row = await fx.stores.store.byId(run.row.id);
    assert.notEqual(row?.status, 'settled', 'sent again, refused again: not done');
    const said = requestsOf(task)
      .filter((r) => !isDoneQuestion(r))
      .map(promptOf);
    assert.match(said.at(-1) ?? '', /\nNote: The page refused what was sent: Enter your full name\. Fix what it says/);
  });

  test('compact: a send the browser refused says which fields kept the form', async () => {
    const task = 'Search for Tora and press Send';
    scripts.set(task, (request) =>
      isDoneQuestion(request) ? { done: 'no' } : { step: { action: 'click', target: 'Send' } },
    );
    const { next } = await stepRun(task, '/required-form', { profile: 'compact' });
    await next();
    await next().catch(() => {});
    const said = requestsOf(task)
      .filter((r) => !isDoneQuestion(r))
      .map(promptOf);
    assert.match(
      said[1] ?? '',
      /\nLast action: clicked button "Send", but the form was not sent: "Query" must be filled in first;/,
    );
  });

  test('compact: text typed and never sent is not the task done; the step names the button to send it', async () => {
    const task = 'Type Tora, then Oslo';
    scripts.set(task, (request) => {
      if (isDoneQuestion(request)) return { done: 'no' };
      const prompt = promptOf(request);
      if (/not sent: press button "Send"\.$/.test(prompt)) return { step: { action: 'click', target: 'Send' } };
      return /"Query" value="Tora"/.test(prompt)
        ? { step: { action: 'type', target: 'Query', text: 'Tora Oslo' } }
        : { step: { action: 'type', target: 'Query', text: 'Tora' } };
    });
    const { run, next } = await stepRun(task, '/send-form', { profile: 'compact' });
    await next();
    await next();
    assert.equal(run.memory.partsDone?.length, 2, 'both parts typed');
    await assert.rejects(next(), Stop);
    assert.match(promptOf(requestsOf(task).at(-1)), /\nEvery part is entered but not sent: press button "Send"\.$/);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.steps], ['completed', 3]);
  });
});
