// agent.Extract against a loopback stand-in of an OpenAI-compatible endpoint (its real wire format,
// strict schemas refused as OpenAI refuses them): the answer in the caller's schema with nulls for
// what the page lacks, an answer outside it, a model too slow, and the options refused before any call.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { isApiError } from '@wap/errors';
import { createLogger } from '@wap/log';
import { extract } from '@wap/proto';
import { type FakeModel, type ModelRequest, modelReply, startFakeOpenAi } from '@wap/testsite';
import type { AgentConfig } from '../config.js';
import { OpenAiCompatibleClient } from '../model/openai.js';
import { extractFormats } from './extract.js';

const fakes: FakeModel[] = [];
after(() => Promise.all(fakes.map((f) => f.close())));

const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'number' }, brand: { type: 'string' } },
  required: ['name', 'price'],
};

async function extractor(reply: (r: ModelRequest) => unknown, timeoutMs = 5_000) {
  const fake = await startFakeOpenAi({ reply });
  fakes.push(fake);
  const client = new OpenAiCompatibleClient({
    name: 'fake',
    baseUrl: fake.url,
    model: 'gpt-test',
    mode: 'json_schema',
    retries: 0,
  });
  const config = {
    AGENT_DEFAULT_MODEL: 'fake',
    EXTRACT_TIMEOUT: timeoutMs,
    EXTRACT_PAGE_TOKENS: 8_000,
    EXTRACT_COMPACT_PAGE_TOKENS: 1_500,
  } as AgentConfig;
  const handler = extractFormats({
    config,
    models: () => ['fake'],
    model: (name) => (name === 'fake' ? client : undefined),
    log: createLogger({ service: 'agent-test', level: 'silent' }),
  });
  return { fake, handler };
}

type RequestInit = MessageInitShape<typeof extract.ExtractRequestSchema>;
const request = (over: RequestInit = {}) =>
  create(extract.ExtractRequestSchema, {
    workspaceId: 'w1',
    url: 'https://shop.test/kettle',
    title: 'Kettle',
    markdown: '# Steel kettle\n\nOur steel kettle costs 49.90 euros.',
    json: { schemaJson: JSON.stringify(SCHEMA) },
    ...over,
  } as RequestInit);

const schemaOf = (r: ModelRequest) => r.body.response_format.json_schema;

test('json: the answer in the schema, a field the page lacks null; the tokens counted', async () => {
  const { fake, handler } = await extractor(() => ({ name: 'Steel kettle', price: 49.9, brand: null }));
  const out = await handler(request());
  assert.deepEqual(out.json, { name: 'Steel kettle', price: 49.9, brand: null });
  assert.deepEqual(out.failures, []);
  assert.ok(out.tokens > 0n);
  assert.equal(out.model, 'gpt-test');
  const sent = fake.requests[0];
  assert.equal(sent?.status, 200, 'the strict schema is one OpenAI takes');
  assert.equal(schemaOf(sent as ModelRequest).strict, true);
  assert.deepEqual(schemaOf(sent as ModelRequest).schema.properties.price, {
    anyOf: [{ type: 'number' }, { type: 'null' }],
  });
  assert.match(sent?.body.messages[0].content, /answer null/);
  assert.match(sent?.body.messages[1].content, /costs 49\.90 euros/);
});

test('json and summary: two calls, both answered', async () => {
  const { handler } = await extractor((r) =>
    schemaOf(r).name === 'summary'
      ? { summary: 'A steel kettle for 49.90 euros.' }
      : { name: 'Steel kettle', price: 49.9, brand: null },
  );
  const out = await handler(request({ summary: true }));
  assert.equal(out.summary, 'A steel kettle for 49.90 euros.');
  assert.equal(out.json?.name, 'Steel kettle');
});

test('an answer outside the schema is extraction_failed, reason schema, naming the field; the summary still stands', async () => {
  const { handler } = await extractor((r) =>
    schemaOf(r).name === 'summary'
      ? { summary: 'A kettle.' }
      : modelReply.text('{"name":"Steel kettle","price":"cheap","brand":null}'),
  );
  const out = await handler(request({ summary: true }));
  assert.equal(out.json, undefined);
  assert.equal(out.summary, 'A kettle.');
  assert.equal(out.failures.length, 1);
  const failure = out.failures[0];
  assert.equal(failure?.format, 'json');
  assert.equal(failure?.code, 'extraction_failed');
  assert.equal(failure?.details?.reason, 'schema');
  assert.equal(((failure?.details?.issues ?? []) as { path: string }[])[0]?.path, 'price');
});

test('a model that does not answer in time is extraction_failed, reason timeout, within the limit', async () => {
  const { handler } = await extractor(() => modelReply.stall(), 1_000);
  const started = Date.now();
  const out = await handler(request());
  assert.ok(Date.now() - started < 3_000, 'ended at the limit');
  assert.equal(out.failures[0]?.code, 'extraction_failed');
  assert.equal(out.failures[0]?.details?.reason, 'timeout');
});

test('a model out of capacity is decode_unavailable; one that answers no JSON is invalid_output', async () => {
  const busy = await extractor(() => modelReply.fail(429, { headers: { 'retry-after': '7' } }));
  const out = await busy.handler(request());
  assert.equal(out.failures[0]?.code, 'decode_unavailable');
  assert.equal(out.failures[0]?.details?.retryAfterSeconds, 7);
  const prose = await extractor(() => modelReply.text('I cannot see a price.'));
  assert.equal((await prose.handler(request())).failures[0]?.details?.reason, 'invalid_output');
});

test('a prompt alone asks any object, without strict mode', async () => {
  const { fake, handler } = await extractor(() => ({ colour: 'steel' }));
  const out = await handler(request({ json: { prompt: 'the colour' } }));
  assert.deepEqual(out.json, { colour: 'steel' });
  assert.equal(schemaOf(fake.requests[0] as ModelRequest).strict, false);
});

test('bad_request before any model call: an unknown model, a schema no model can answer in, no schema nor prompt', async () => {
  const { fake, handler } = await extractor(() => ({}));
  const refused = async (over: RequestInit, path: string) => {
    const err = await handler(request(over)).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isApiError(err) && err.code === 'bad_request', `${path}: ${String(err)}`);
    assert.equal((err.details as { issues: { path: string }[] }).issues[0]?.path, path);
  };
  await refused({ model: 'gpt-9' }, 'model');
  await refused({ json: { schemaJson: '{"type":"string"}' } }, 'jsonOptions.schema');
  await refused({ json: { schemaJson: '{"type":"object","properties":{"a":{"$ref":"#"}}}' } }, 'jsonOptions.schema');
  await refused({ json: {} }, 'jsonOptions');
  await refused({ checkOnly: true, model: 'gpt-9' }, 'model');
  const checked = await handler(request({ checkOnly: true }));
  assert.deepEqual(checked.failures, []);
  assert.equal(fake.requests.length, 0, 'the model was never asked');
});
