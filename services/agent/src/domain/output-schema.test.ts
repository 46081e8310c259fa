import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonSchema } from '../model/types.js';
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_PROPERTIES, outputSchemaProblem } from './output-schema.js';

/** An object schema `levels` objects deep, a string inside the last. */
function nested(levels: number): JsonSchema {
  let schema: JsonSchema = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { inner: schema }, required: ['inner'] };
  return schema;
}

const objectOf = (n: number): JsonSchema => ({
  type: 'object',
  properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: 'string' }])),
});

test('a finite schema is accepted, definitions reused by $ref included', () => {
  assert.equal(outputSchemaProblem({ type: 'object', properties: { price: { type: 'string' } } }), undefined);
  assert.equal(
    outputSchemaProblem({
      $defs: { money: { type: 'object', properties: { amount: { type: 'number' }, 'a/b~c': { type: 'string' } } } },
      type: 'object',
      properties: {
        price: { $ref: '#/$defs/money' },
        shipping: { anyOf: [{ $ref: '#/$defs/money' }, { type: 'null' }] },
        tags: { type: 'array', items: { $ref: '#/$defs/money/properties/a~1b~0c' } },
      },
    }),
    undefined,
  );
  assert.equal(outputSchemaProblem(nested(MAX_SCHEMA_DEPTH)), undefined);
  assert.equal(outputSchemaProblem(objectOf(MAX_SCHEMA_PROPERTIES)), undefined);
});

test('any $ref recursion is refused, however many $refs away', () => {
  const recursive: JsonSchema[] = [
    { $ref: '#' },
    { type: 'object', properties: { next: { $ref: '#' } } },
    { type: 'array', items: { anyOf: [{ type: 'string' }, { $ref: '#' }] } },
    { type: 'object', properties: { a: { type: 'object', properties: { b: { $ref: '#/properties/a' } } } } },
    {
      $defs: { a: { type: 'object', properties: { b: { $ref: '#/$defs/b' } } }, b: { items: { $ref: '#/$defs/a' } } },
      $ref: '#/$defs/a',
    },
    { $defs: { node: { type: 'object', properties: { children: { $ref: '#/%24defs/node' } } } }, $ref: '#/$defs/node' },
    { type: 'object', properties: { a: { $dynamicRef: '#node' } } },
  ];
  for (const schema of recursive)
    assert.match(outputSchemaProblem(schema) ?? 'accepted', /never ends|recursive reference/, JSON.stringify(schema));
});

test('a $ref outside the schema or to nothing is refused', () => {
  for (const $ref of ['https://example.com/schema.json', '#/$defs/missing', '#anchor', '#/properties/%zz'])
    assert.match(outputSchemaProblem({ type: 'object', properties: { a: { $ref } } }) ?? 'accepted', /local JSON/);
});

test('nesting past the depth limit, properties past the limit, and a blown-up $ref graph are refused', () => {
  assert.match(outputSchemaProblem(nested(MAX_SCHEMA_DEPTH + 1)) ?? 'accepted', /deeper than 10 levels/);
  assert.match(outputSchemaProblem(objectOf(MAX_SCHEMA_PROPERTIES + 1)) ?? 'accepted', /more than 200 properties/);
  // 20 properties, each a definition used twice: 2^20 of them once the $refs are followed.
  const $defs: Record<string, JsonSchema> = { d20: { type: 'string' } };
  for (let i = 19; i >= 0; i--)
    $defs[`d${i}`] = {
      type: 'object',
      properties: { x: { $ref: `#/$defs/d${i + 1}` }, y: { $ref: `#/$defs/d${i + 1}` } },
    };
  assert.match(outputSchemaProblem({ $defs, $ref: '#/$defs/d0' }) ?? 'accepted', /more than|deeper than/);
  const wide: Record<string, JsonSchema> = { d8: { type: 'string' } };
  for (let i = 7; i >= 0; i--)
    wide[`d${i}`] = { anyOf: Array.from({ length: 8 }, () => ({ $ref: `#/$defs/d${i + 1}` })) };
  assert.match(outputSchemaProblem({ $defs: wide, $ref: '#/$defs/d0' }) ?? 'accepted', /more than 2000 subschemas/);
});
