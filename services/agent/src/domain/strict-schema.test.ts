import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { looseAnswer, strictSchema } from './strict-schema.js';

const caller = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    tags: {
      type: 'array',
      items: { type: 'object', properties: { t: { type: 'string' }, n: { type: 'integer' } }, required: ['t'] },
    },
  },
  required: ['name'],
};

test('closes every object and makes optional properties required but nullable', () => {
  const strict = strictSchema(caller);
  assert.equal(strict.additionalProperties, false);
  assert.deepEqual(strict.required, ['name', 'tags']);
  const tags = (strict.properties as { tags: { anyOf: [{ items: { required: string[] } }, { type: string }] } }).tags;
  assert.equal(tags.anyOf[1].type, 'null');
  assert.deepEqual(tags.anyOf[0].items.required, ['t', 'n']);
  assert.equal(caller.properties.tags.items.required.length, 1, "the caller's schema is untouched");
});

test("an answer in the strict form is valid in the caller's form once its forced nulls are dropped", () => {
  const answer = { name: 'a', tags: [{ t: 'x', n: null }] };
  assert.equal(z.fromJSONSchema(caller as never).safeParse(answer).success, false);
  const loose = looseAnswer(caller, answer);
  assert.deepEqual(loose, { name: 'a', tags: [{ t: 'x' }] });
  assert.equal(z.fromJSONSchema(caller as never).safeParse(loose).success, true);
  assert.deepEqual(looseAnswer(caller, { name: null }), { name: null }, 'a required null stays (and fails validation)');
});
