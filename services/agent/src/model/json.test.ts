import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractJsonObject, MAX_OUTPUT_CHARS, requireObject, tokenCount } from './json.js';
import { ModelError } from './types.js';

const badOutput = (run: () => unknown) =>
  assert.throws(run, (e: unknown) => e instanceof ModelError && e.kind === 'bad_output');

test('the first complete JSON object, wherever the model put it', () => {
  const step = { action: 'type', text: 'a } brace and a "quote" inside', nested: { list: [1, { a: [] }] } };
  const json = JSON.stringify(step);
  for (const text of [
    json,
    `  ${json}\n`,
    `\`\`\`json\n${json}\n\`\`\``,
    `Sure. Here it is:\n\`\`\`\n${JSON.stringify(step, null, 2)}\n\`\`\`\nAnything else?`,
    `I think {this} is it: ${json} and then {"second": true}`,
    `[not this] ${json}`,
  ]) {
    assert.deepEqual(extractJsonObject(text), step, text);
  }
  // Brackets in prose cannot be told from JSON's: an object inside an array is still the first complete one.
  assert.deepEqual(extractJsonObject('[{"a": 1}]'), { a: 1 });
});

test('no complete object, or too much text: bad_output', () => {
  for (const text of ['', 'click the button', '{"a": 1', '[1, 2]', '{a: 1}', "{'a': 1}", '{"a": 1]']) {
    badOutput(() => extractJsonObject(text));
  }
  badOutput(() => extractJsonObject(`{"a": "${'x'.repeat(MAX_OUTPUT_CHARS)}"}`));
  // Many unclosed braces cost a bounded number of scans, not one per brace.
  const started = performance.now();
  badOutput(() => extractJsonObject('{'.repeat(MAX_OUTPUT_CHARS - 1)));
  assert.ok(performance.now() - started < 1_000);
});

test('parsed input is held to the same bounds', () => {
  assert.deepEqual(requireObject({ a: 1 }, 'input'), { a: 1 });
  badOutput(() => requireObject('text', 'input'));
  badOutput(() => requireObject([1], 'input'));
  badOutput(() => requireObject({ a: 'x'.repeat(MAX_OUTPUT_CHARS) }, 'input'));
});

test('token counts: non-negative integers, else 0', () => {
  assert.equal(tokenCount(12), 12);
  for (const v of [-1, 1.5, '12', null, undefined, Number.NaN, 2 ** 60]) assert.equal(tokenCount(v), 0);
});
