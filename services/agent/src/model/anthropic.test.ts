import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { until } from '@wap/testkit';
import { type FakeModel, modelReply, startFakeAnthropic } from '@wap/testsite';
import { AnthropicClient, type AnthropicOptions } from './anthropic.js';
import { modelFailure, PNG, STEP, STEP_SCHEMA, stepRequest, timed } from './test-support.js';

const KEY = 'sk-ant-api03-test-0123456789abcdef';
const fakes: FakeModel[] = [];
after(() => Promise.all(fakes.map((f) => f.close())));

/** A fake answering `reply` in order, and a client of it (small backoffs: the tests wait for real). */
async function anthropic(reply: unknown[], options: Partial<AnthropicOptions> = {}) {
  const fake = await startFakeAnthropic({ apiKey: KEY, reply });
  fakes.push(fake);
  const client = new AnthropicClient({
    name: 'fake-anthropic',
    baseUrl: fake.url,
    apiKey: KEY,
    model: 'claude-test',
    backoffMs: 20,
    ...options,
  });
  return { fake, client };
}

test('one forced tool with the step schema; the tool_use input is the step', async () => {
  const { fake, client } = await anthropic([STEP]);
  const result = await client.step(stepRequest());
  assert.deepEqual(result.output, STEP);
  assert.equal(result.model, 'claude-test');
  const [req] = fake.requests;
  assert.equal(req?.path, '/v1/messages');
  assert.equal(req?.headers['x-api-key'], KEY);
  assert.equal(req?.headers['anthropic-version'], '2023-06-01');
  const body = req?.body;
  assert.equal(body.max_tokens, 1024);
  assert.deepEqual(body.system, [
    { type: 'text', text: 'You drive a browser. Answer one step.', cache_control: { type: 'ephemeral' } },
  ]);
  assert.deepEqual(body.tools, [{ name: 'step', input_schema: STEP_SCHEMA }]);
  assert.deepEqual(body.tool_choice, { type: 'tool', name: 'step' });
  // No vision: text only.
  assert.deepEqual(body.messages[0], { role: 'user', content: 'Task: press Go.\n[3]<button>Go</button>' });
  assert.ok(!JSON.stringify(body).includes(PNG));
  assert.deepEqual(result.usage, req?.usage);
  assert.ok(result.usage.inputTokens > 0 && result.usage.outputTokens > 0);
});

test('with vision: screenshots as base64 image blocks of user turns; max_tokens from the step', async () => {
  const { fake, client } = await anthropic([STEP], { vision: true });
  await client.step(stepRequest({ maxOutputTokens: 256 }));
  const body = fake.requests[0]?.body;
  assert.equal(body.max_tokens, 256);
  assert.deepEqual(body.messages[0].content, [
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    { type: 'text', text: 'Task: press Go.\n[3]<button>Go</button>' },
  ]);
  assert.equal(body.messages[1].content, '{"action":"click","element":9,"note":"wrong"}');
  assert.equal(body.messages[2].content[0].type, 'image');
});

test('a text answer instead of the tool: fenced JSON is parsed, garbage is bad_output', async () => {
  const fenced = `I'll click Go.\n\`\`\`json\n${JSON.stringify(STEP)}\n\`\`\``;
  const { client } = await anthropic([modelReply.text(fenced), modelReply.text('Sorry, no.'), STEP]);
  assert.deepEqual((await client.step(stepRequest())).output, STEP);
  const error = await modelFailure(client.step(stepRequest()));
  assert.equal(error.kind, 'bad_output');
  assert.ok(!error.message.includes('Sorry'));
  // A tool input that is not an object is bad output too.
  const odd = await anthropic(['just a string']);
  assert.equal((await modelFailure(odd.client.step(stepRequest()))).kind, 'bad_output');
});

test('529 overloaded then success: retried after the Retry-After', async () => {
  const { fake, client } = await anthropic([modelReply.fail(529, { headers: { 'retry-after': '1' } }), STEP]);
  const { value, ms } = await timed(() => client.step(stepRequest()));
  assert.deepEqual(value.output, STEP);
  assert.deepEqual(
    fake.requests.map((r) => r.status),
    [529, 200],
  );
  assert.ok(ms >= 1000, `answered after ${ms} ms, before the Retry-After of 1 s`);
});

test('overloaded past the retries: no capacity (a run waits), with the provider error in the message', async () => {
  const { fake, client } = await anthropic([modelReply.fail(529), modelReply.fail(529)], { retries: 1 });
  const error = await modelFailure(client.step(stepRequest()));
  assert.equal(error.kind, 'rate_limited');
  assert.equal(error.noCapacity, true);
  assert.equal(error.status, 529);
  assert.equal(error.retryable, true);
  assert.equal(error.message, 'fake-anthropic: HTTP 529 overloaded_error: Overloaded');
  assert.equal(fake.requests.length, 2);
});

test('429 is rate_limited; 400 and 401 are final at once', async () => {
  const limited = await anthropic([modelReply.fail(429), modelReply.fail(429)], { retries: 1 });
  const rate = await modelFailure(limited.client.step(stepRequest()));
  assert.equal(rate.kind, 'rate_limited');
  assert.match(rate.message, /rate_limit_error/);

  const bad = await anthropic([modelReply.fail(400), STEP]);
  assert.equal((await modelFailure(bad.client.step(stepRequest()))).kind, 'bad_request');
  assert.equal(bad.fake.requests.length, 1);

  const wrong = await anthropic([STEP], { apiKey: 'sk-ant-api03-wrong-key-000000' });
  const auth = await modelFailure(wrong.client.step(stepRequest()));
  assert.equal(auth.kind, 'auth');
  assert.equal(auth.message, 'fake-anthropic: HTTP 401 authentication_error: invalid x-api-key');
  assert.equal(wrong.fake.requests.length, 1);

  const none = await anthropic([STEP], { apiKey: undefined });
  assert.match((await modelFailure(none.client.step(stepRequest()))).message, /x-api-key header is required/);
});

test('a stalled attempt times out and the next answers; an abort ends a held call', async () => {
  const slow = await anthropic([modelReply.stall(), STEP], { timeoutMs: 800, retries: 1 });
  const { value, ms } = await timed(() => slow.client.step(stepRequest()));
  assert.deepEqual(value.output, STEP);
  assert.ok(ms >= 800);

  const held = await anthropic([modelReply.stall()]);
  const stop = new AbortController();
  const call = modelFailure(held.client.step(stepRequest({ signal: stop.signal })));
  await until('the fake holds the request', async () => held.fake.requests.length === 1);
  stop.abort();
  assert.equal((await call).kind, 'aborted');
});

test('the fake refuses what the Messages API refuses, with its error body', async () => {
  const { fake } = await anthropic([]);
  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as { type: string; error?: { type: string; message: string } };
    return { status: res.status, answer };
  };
  const messages = [{ role: 'user', content: 'hi' }];
  const image = (media_type: string) => ({ type: 'image', source: { type: 'base64', media_type, data: PNG } });
  const cases: [unknown, RegExp][] = [
    [{ max_tokens: 10, messages }, /^model: Field required$/],
    [{ model: 'm', messages }, /^max_tokens: Field required$/],
    [{ model: 'm', max_tokens: 10 }, /^messages: Field required$/],
    [{ model: 'm', max_tokens: 0, messages }, /greater than or equal to 1/],
    [{ model: 'm', max_tokens: 10, messages: [] }, /at least one message is required/],
    [
      { model: 'm', max_tokens: 10, messages: [{ role: 'system', content: 'x' }] },
      /Input should be 'user' or 'assistant'/,
    ],
    [{ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: [image('image/bmp')] }] }, /media_type/],
    [{ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: '' }] }, /must be non-empty/],
    [
      { model: 'm', max_tokens: 10, messages, tool_choice: { type: 'tool', name: 'x' } },
      /only be specified while providing tools/,
    ],
    [
      { model: 'm', max_tokens: 10, messages, tools: [{ name: 'a b', input_schema: { type: 'object' } }] },
      /should match pattern/,
    ],
  ];
  for (const [body, message] of cases) {
    const { status, answer } = await post(body);
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(answer.type, 'error');
    assert.equal(answer.error?.type, 'invalid_request_error');
    assert.match(answer.error?.message ?? '', message);
  }
  const valid = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: [image('image/png')] }] };
  assert.match((await post(valid, { 'anthropic-version': '' })).answer.error?.message ?? '', /anthropic-version/);
  assert.equal((await post(valid, { 'x-api-key': 'nope' })).status, 401);
  // Every refusal was recorded; a valid request reaches the script (an empty queue answers 500).
  assert.equal((await post(valid)).status, 500);
  assert.equal(fake.requests.length, cases.length + 3);
});
