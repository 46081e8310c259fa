import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { until } from '@wap/testkit';
import { type FakeModel, modelReply, startFakeOpenAi } from '@wap/testsite';
import { OpenAiCompatibleClient, type OpenAiCompatibleOptions } from './openai.js';
import { modelFailure, PNG, STEP, STEP_SCHEMA, stepRequest, timed } from './test-support.js';

const KEY = 'sk-test-0123456789abcdefghij';
const fakes: FakeModel[] = [];
after(() => Promise.all(fakes.map((f) => f.close())));

/** A fake answering `reply` in order, and a client of it (small backoffs: the tests wait for real). */
async function openAi(reply: unknown[], options: Partial<OpenAiCompatibleOptions> = {}) {
  const fake = await startFakeOpenAi({ apiKey: KEY, reply });
  fakes.push(fake);
  const client = new OpenAiCompatibleClient({
    name: 'fake-openai',
    baseUrl: fake.url,
    apiKey: KEY,
    model: 'gpt-test',
    mode: 'json_schema',
    backoffMs: 20,
    ...options,
  });
  return { fake, client };
}

test('json_schema mode: system first, the schema as response_format, text only without vision', async () => {
  const { fake, client } = await openAi([STEP]);
  const result = await client.step(stepRequest({ maxOutputTokens: 300 }));
  assert.deepEqual(result.output, STEP);
  assert.equal(result.model, 'gpt-test');
  const [req] = fake.requests;
  assert.equal(req?.status, 200);
  assert.equal(req?.headers.authorization, `Bearer ${KEY}`);
  assert.deepEqual(req?.body.response_format, {
    type: 'json_schema',
    json_schema: { name: 'step', strict: true, schema: STEP_SCHEMA },
  });
  assert.equal(req?.body.tools, undefined);
  assert.equal(req?.body.max_tokens, 300);
  assert.deepEqual(
    req?.body.messages.map((m: { role: string }) => m.role),
    ['system', 'user', 'assistant', 'user'],
  );
  assert.equal(req?.body.messages[0].content, 'You drive a browser. Answer one step.');
  // No vision: the screenshots stay home.
  assert.equal(req?.body.messages[1].content, 'Task: press Go.\n[3]<button>Go</button>');
  assert.ok(!JSON.stringify(req?.body).includes(PNG));
  assert.deepEqual(result.usage, req?.usage);
  assert.ok(result.usage.inputTokens > 0 && result.usage.outputTokens > 0);
});

test('tools mode with vision: one forced function, screenshots as image_url parts of user messages', async () => {
  const { fake, client } = await openAi([STEP], {
    mode: 'tools',
    vision: true,
    maxTokensField: 'max_completion_tokens',
  });
  assert.equal(client.vision, true);
  const result = await client.step(stepRequest({ maxOutputTokens: 200 }));
  assert.deepEqual(result.output, STEP);
  const body = fake.requests[0]?.body;
  assert.deepEqual(body.tools, [{ type: 'function', function: { name: 'step', parameters: STEP_SCHEMA } }]);
  assert.deepEqual(body.tool_choice, { type: 'function', function: { name: 'step' } });
  assert.equal(body.response_format, undefined);
  assert.equal(body.max_completion_tokens, 200);
  assert.equal(body.max_tokens, undefined);
  assert.deepEqual(body.messages[1].content, [
    { type: 'text', text: 'Task: press Go.\n[3]<button>Go</button>' },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
  ]);
  // An assistant turn never carries images.
  assert.equal(body.messages[2].content, '{"action":"click","element":9,"note":"wrong"}');
  assert.deepEqual(result.usage, fake.requests[0]?.usage);
});

for (const mode of ['json_schema', 'tools'] as const) {
  test(`streaming, ${mode}: deltas assembled, usage from the final chunk`, async () => {
    const long = { ...STEP, note: 'a note long enough to span many chunks of the stream '.repeat(4) };
    const { fake, client } = await openAi([long], { mode, stream: true });
    const result = await client.step(stepRequest());
    assert.deepEqual(result.output, long);
    const body = fake.requests[0]?.body;
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.equal(fake.requests[0]?.headers.accept, 'text/event-stream');
    assert.deepEqual(result.usage, fake.requests[0]?.usage);
    assert.ok(result.usage.outputTokens > 40);
  });
}

test('fenced JSON with prose around it is parsed, in content and in tool arguments', async () => {
  const fenced = `Here is the step:\n\`\`\`json\n${JSON.stringify(STEP, null, 2)}\n\`\`\`\nDone {not json}.`;
  const content = await openAi([modelReply.text(fenced)]);
  assert.deepEqual((await content.client.step(stepRequest())).output, STEP);
  const tool = await openAi([modelReply.text(fenced, 'tool')], { mode: 'tools', stream: true });
  assert.deepEqual((await tool.client.step(stepRequest())).output, STEP);
  // A server that ignores the forced tool and answers in content still yields the step.
  const ignored = await openAi([modelReply.text(fenced)], { mode: 'tools' });
  assert.deepEqual((await ignored.client.step(stepRequest())).output, STEP);
});

test('garbage is bad_output, not retried, and not quoted back', async () => {
  for (const text of ['I would click the button.', '{"action": "click", ', '[1, 2, 3]', 'x'.repeat(70_000)]) {
    const { fake, client } = await openAi([modelReply.text(text), STEP]);
    const error = await modelFailure(client.step(stepRequest()));
    assert.equal(error.kind, 'bad_output', text.slice(0, 40));
    assert.equal(error.retryable, false);
    assert.equal(fake.requests.length, 1);
    assert.ok(!error.message.includes('click the button'));
  }
});

test('an answer over the body bound is bad_output, read no further, and not retried', async () => {
  const { fake, client } = await openAi([modelReply.text('x'.repeat(1_100_000)), STEP]);
  const error = await modelFailure(client.step(stepRequest()));
  assert.equal(error.kind, 'bad_output');
  assert.match(error.message, /^fake-openai: answer over 1048576 bytes$/);
  assert.equal(fake.requests.length, 1);
});

test('a 200 that is not JSON (a proxy page) is bad_output, and not retried', async () => {
  let served = 0;
  const server = createServer((_req, res) => {
    served++;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body>Sign in to the proxy</body></html>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  after(() => server.close());
  const { port } = server.address() as AddressInfo;
  const client = new OpenAiCompatibleClient({
    name: 'proxy',
    baseUrl: `http://127.0.0.1:${port}/v1`,
    model: 'm',
    mode: 'json_schema',
  });
  const error = await modelFailure(client.step(stepRequest()));
  assert.equal(error.kind, 'bad_output');
  assert.match(error.message, /^proxy: answer has no message$/);
  assert.equal(served, 1);
});

test('a stream the server closes before the choice finished is unavailable, and retried', async () => {
  const chunk = (delta: unknown) => `data: ${JSON.stringify({ model: 'cut', choices: [{ index: 0, delta }] })}\n\n`;
  let served = 0;
  const server = createServer((_req, res) => {
    served++;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(chunk({ content: '{"action":' }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  after(() => server.close());
  const { port } = server.address() as AddressInfo;
  const client = new OpenAiCompatibleClient({
    name: 'cut',
    baseUrl: `http://127.0.0.1:${port}/v1`,
    model: 'm',
    mode: 'json_schema',
    stream: true,
    retries: 1,
    backoffMs: 10,
  });
  const error = await modelFailure(client.step(stepRequest()));
  assert.equal(error.kind, 'unavailable');
  assert.match(error.message, /^cut: stream ended before the answer finished$/);
  assert.equal(served, 2);
});

test('429 then 503: retried, waiting at least the Retry-After', async () => {
  const { fake, client } = await openAi([
    modelReply.fail(429, { headers: { 'retry-after': '1' } }),
    modelReply.fail(503),
    STEP,
  ]);
  const { value, ms } = await timed(() => client.step(stepRequest()));
  assert.deepEqual(value.output, STEP);
  assert.deepEqual(
    fake.requests.map((r) => r.status),
    [429, 503, 200],
  );
  assert.ok(ms >= 1000, `answered after ${ms} ms, before the Retry-After of 1 s`);
  assert.ok(value.ms >= 1000);
});

test('retries run out: the last failure, retryable by a later step', async () => {
  const { fake, client } = await openAi([modelReply.fail(500), modelReply.fail(502), modelReply.fail(500)], {
    retries: 2,
  });
  const error = await modelFailure(client.step(stepRequest()));
  assert.equal(error.kind, 'unavailable');
  assert.equal(error.status, 500);
  assert.equal(error.retryable, true);
  assert.match(error.message, /^fake-openai: HTTP 500 server_error: The server had an error/);
  assert.equal(fake.requests.length, 3);
});

test('a Retry-After beyond the longest wait fails at once', async () => {
  const { fake, client } = await openAi([modelReply.fail(429, { headers: { 'retry-after': '120' } }), STEP], {
    maxWaitMs: 5_000,
  });
  const { value: error, ms } = await timed(() => modelFailure(client.step(stepRequest())));
  assert.equal(error.kind, 'rate_limited');
  assert.match(error.message, /rate_limit_exceeded|requests: Rate limit/);
  assert.match(error.message, /asked to wait 120 s/);
  assert.equal(fake.requests.length, 1);
  assert.ok(ms < 4_000);
});

test('400 and 401 are final at once; a key in the error body is not repeated', async () => {
  const bad = await openAi([modelReply.fail(400), STEP]);
  const badRequest = await modelFailure(bad.client.step(stepRequest()));
  assert.equal(badRequest.kind, 'bad_request');
  assert.equal(bad.fake.requests.length, 1);

  const wrongKey = 'sk-wrong-9876543210zyxwvutsrq';
  const refused = await openAi([STEP], { apiKey: wrongKey });
  const auth = await modelFailure(refused.client.step(stepRequest()));
  assert.equal(auth.kind, 'auth');
  assert.equal(auth.status, 401);
  assert.match(auth.message, /invalid_request_error: Incorrect API key provided/);
  assert.ok(!auth.message.includes(wrongKey) && !auth.message.includes('9876543210'), auth.message);
  assert.equal(refused.fake.requests.length, 1);

  const echoed = await openAi([modelReply.fail(403, { body: { error: { message: `key ${KEY} is banned` } } })]);
  const banned = await modelFailure(echoed.client.step(stepRequest()));
  assert.equal(banned.kind, 'auth');
  assert.ok(!banned.message.includes(KEY), banned.message);
  assert.match(banned.message, /key \[redacted\] is banned/);
});

test('no key at all: the fake refuses as OpenAI does', async () => {
  const { client } = await openAi([STEP], { apiKey: undefined });
  const error = await modelFailure(client.step(stepRequest()));
  assert.equal(error.kind, 'auth');
  assert.match(error.message, /You didn't provide an API key/);
});

test('a schema that is not strict: the 400 OpenAI gives, passed on', async () => {
  const { client } = await openAi([STEP]);
  const loose = { ...STEP_SCHEMA, additionalProperties: true };
  const error = await modelFailure(client.step(stepRequest({ schema: loose })));
  assert.equal(error.kind, 'bad_request');
  assert.match(error.message, /Invalid schema for response_format 'step'.*'additionalProperties' is required/);
});

test('each attempt has its own timeout: a stalled one is abandoned and the next answers', async () => {
  const { fake, client } = await openAi([modelReply.stall(), STEP], { timeoutMs: 800, retries: 1 });
  const { value, ms } = await timed(() => client.step(stepRequest()));
  assert.deepEqual(value.output, STEP);
  assert.equal(fake.requests.length, 2);
  assert.ok(ms >= 800, `answered after ${ms} ms`);
});

test("a caller's signal does not lift the timeout", async () => {
  const { client } = await openAi([modelReply.stall()], { timeoutMs: 300, retries: 0 });
  const patient = new AbortController();
  const error = await modelFailure(client.step(stepRequest({ signal: patient.signal })));
  assert.equal(error.kind, 'unavailable');
  assert.match(error.message, /no answer within 300 ms/);
});

test("a caller's abort ends the call, during an attempt and during a wait", async () => {
  const held = await openAi([modelReply.stall()]);
  const during = new AbortController();
  const call = modelFailure(held.client.step(stepRequest({ signal: during.signal })));
  await until('the fake holds the request', async () => held.fake.requests.length === 1);
  during.abort();
  assert.equal((await call).kind, 'aborted');

  const waiting = await openAi([modelReply.fail(429, { headers: { 'retry-after': '20' } }), STEP]);
  const wait = new AbortController();
  const started = performance.now();
  const pending = modelFailure(waiting.client.step(stepRequest({ signal: wait.signal })));
  await until('the first attempt is answered', async () => waiting.fake.requests.length === 1);
  wait.abort();
  const error = await pending;
  assert.equal(error.kind, 'aborted');
  assert.equal(error.retryable, false);
  assert.ok(performance.now() - started < 10_000);
  assert.equal(waiting.fake.requests.length, 1);

  const before = new AbortController();
  before.abort();
  assert.equal((await modelFailure(waiting.client.step(stepRequest({ signal: before.signal })))).kind, 'aborted');
  assert.equal(waiting.fake.requests.length, 1);
});

test('a connection refused is unavailable, and retried', async () => {
  const gone = await startFakeOpenAi({ reply: [] });
  await gone.close();
  let calls = 0;
  const client = new OpenAiCompatibleClient({
    name: 'gone',
    baseUrl: gone.url,
    model: 'm',
    mode: 'json_schema',
    retries: 1,
    backoffMs: 10,
    fetch: (input, init) => {
      calls++;
      return fetch(input, init);
    },
  });
  const error = await modelFailure(client.step(stepRequest()));
  assert.equal(error.kind, 'unavailable');
  assert.match(error.message, /connection failed \(ECONNREFUSED\)/);
  assert.equal(calls, 2);
});

test('the fake refuses what OpenAI refuses, with its error body', async () => {
  const strict = await startFakeOpenAi({ apiKey: KEY, reply: () => STEP });
  fakes.push(strict);
  const post = async (body: unknown, path = '/chat/completions') => {
    const res = await fetch(`${strict.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const { error } = (await res.json()) as { error: { message: string; type: string } };
    return { status: res.status, ...error };
  };
  const messages = [{ role: 'user', content: 'hi' }];
  const cases: [unknown, number, RegExp][] = [
    ['{not json', 400, /could not parse the JSON body/],
    [{ messages }, 400, /you must provide a model parameter/],
    [{ model: 'm' }, 400, /Missing required parameter: 'messages'/],
    [{ model: 'm', messages: [] }, 400, /empty array/],
    [{ model: 'm', messages: [{ role: 'robot', content: 'x' }] }, 400, /Invalid value: 'robot'/],
    [
      {
        model: 'm',
        messages: [
          { role: 'assistant', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }] },
        ],
      },
      400,
      /only allowed for messages with role 'user'/,
    ],
    [
      {
        model: 'm',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }] }],
      },
      400,
      /Invalid image URL/,
    ],
    [{ model: 'm', messages, max_tokens: 0 }, 400, /integer below minimum value/],
    [{ model: 'm', messages, stream_options: { include_usage: true } }, 400, /only allowed when 'stream' is enabled/],
    [{ model: 'm', messages, tool_choice: 'auto' }, 400, /only allowed when 'tools' are specified/],
    [
      { model: 'm', messages, response_format: { type: 'json_schema', json_schema: { name: 'a b', schema: {} } } },
      400,
      /does not match pattern/,
    ],
    [{ model: 'm', messages }, 200, /./],
  ];
  for (const [body, status, message] of cases) {
    const answer = await post(body);
    assert.equal(answer.status, status, JSON.stringify(body));
    if (status !== 200) {
      assert.equal(answer.type, 'invalid_request_error');
      assert.match(answer.message, message);
    }
  }
  assert.equal((await post({ model: 'm', messages }, '/completions')).status, 404);
});
