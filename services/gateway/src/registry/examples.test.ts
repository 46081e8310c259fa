import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRegistry } from './index.js';
import { openApiDocument } from './openapi.js';

const everything = buildRegistry({ configured: () => true });
const withBody = everything.filter((row) => row.request.body);

test('every row with a request body has an example its own schema accepts', () => {
  assert.ok(withBody.length > 0);
  for (const row of withBody) {
    assert.notEqual(row.example, undefined, `${row.name} has no example`);
    // As the route parses it: JSON on the wire, then the row's zod schema.
    const result = row.request.body?.safeParse(JSON.parse(JSON.stringify(row.example)));
    assert.ok(result?.success, `${row.name}: ${JSON.stringify(result?.error?.issues)}`);
  }
});

test('a row without a body has no example', () => {
  for (const row of everything.filter((r) => !r.request.body)) assert.equal(row.example, undefined, row.name);
});

test("the OpenAPI document carries each example on its request body's media type", () => {
  const doc = openApiDocument(everything, 'http://x');
  for (const row of withBody) {
    const op = doc.paths[row.path]?.[row.method] as {
      requestBody: { content: { 'application/json': { example: unknown } } };
    };
    assert.deepEqual(op.requestBody.content['application/json'].example, row.example, row.name);
  }
});

test('the examples catch what the schemas refuse (an empty CSS selector, a URL without a scheme)', () => {
  const scrape = everything.find((r) => r.name === 'scrape')?.request.body;
  assert.ok(scrape);
  assert.ok(!scrape.safeParse({ url: 'https://example.com', includeTags: [''] }).success);
  assert.ok(!scrape.safeParse({ url: 'https://example.com', excludeTags: [''] }).success);
  assert.ok(!scrape.safeParse({ url: '' }).success);
  assert.ok(!scrape.safeParse({ url: 'example.com' }).success);
});
