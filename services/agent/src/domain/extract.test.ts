import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANY_OBJECT, checkJson, EXTRACT_SYSTEM, jsonStep, schemaWords, summaryOf, summaryStep } from './extract.js';

const product = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    price: { type: 'number', description: 'Price in euros' },
    sizes: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] } },
  },
  required: ['name', 'price'],
};
const page = { url: 'https://shop.test/kettle', title: 'Kettle', markdown: '# Steel kettle\n\nA kettle.' };

test('every field of the schema is nullable and required, however the caller marked it', () => {
  const step = jsonStep(page, { schema: product }, 10_000);
  const props = step.schema.properties as Record<string, { anyOf: unknown[] }>;
  for (const name of ['name', 'price', 'sizes']) assert.deepEqual(props[name]?.anyOf[1], { type: 'null' }, name);
  assert.deepEqual(step.schema.required, ['name', 'price', 'sizes']);
  assert.equal(step.schema.additionalProperties, false);
  assert.equal(step.loose, undefined, 'a schema is strict');
  assert.equal(step.system, EXTRACT_SYSTEM);
  assert.match(
    step.messages[0]?.text ?? '',
    /Fields: name; price \(Price in euros\); sizes\. A field the page does not hold is null\./,
  );
  assert.match(step.system, /answer null/);
});

test('a prompt alone asks any object, loosely, with the prompt and the caller’s instructions in the task', () => {
  const step = jsonStep(page, { prompt: 'the price', systemPrompt: 'Prices in cents.' }, 10_000);
  assert.deepEqual(step.schema, ANY_OBJECT);
  assert.equal(step.loose, true);
  const text = step.messages[0]?.text ?? '';
  assert.match(text, /What to extract: the price/);
  assert.match(text, /Further instructions from the caller: Prices in cents\./);
  assert.ok(text.indexOf('<page>') < text.indexOf('Task:'), 'the page first, the task after it');
});

test('a long page goes as its parts relevant to the schema and prompt, within the budget', () => {
  const filler = Array.from(
    { length: 200 },
    (_, i) => `Paragraph ${i} tells the history of the company and its founders.`,
  );
  filler.splice(150, 0, 'The kettle price is 49 euros, sizes small and large.');
  const step = jsonStep({ ...page, markdown: filler.join('\n\n') }, { schema: product }, 2_000);
  const text = step.messages[0]?.text ?? '';
  assert.match(text, /price is 49 euros/, 'the paragraph that holds the price is kept, though it is near the end');
  assert.ok(text.length < 2_600, `within the budget (${text.length})`);
  assert.match(text, /most relevant to the task/, 'the model is told it sees part of the page');
});

test('a page within the budget goes whole, and summary and json share the page and the system prompt', () => {
  const json = jsonStep(page, { schema: product }, 10_000).messages[0]?.text ?? '';
  const summary = summaryStep(page, 10_000).messages[0]?.text ?? '';
  assert.match(json, /shown in full/);
  const head = (t: string) => t.slice(0, t.indexOf('Task:'));
  assert.equal(head(json), head(summary));
});

test('a page within the budget goes whole, though only some of its paragraphs name a field', () => {
  const job = { type: 'object', properties: { company: { type: 'string' }, salary: { type: 'string' } } };
  const markdown = '# Data engineer\n\nNorthwind is hiring in Ghent.\n\nSalary: 52k a year';
  const text = jsonStep({ ...page, markdown }, { schema: job }, 10_000).messages[0]?.text ?? '';
  assert.match(text, /Northwind is hiring in Ghent\./, 'the paragraph naming no field is shown');
  assert.match(text, /shown in full/);
});

test('each field is shown the first page line that names it; a field no line names is shown none', () => {
  const event = {
    type: 'object',
    properties: {
      date: { type: 'string', description: 'date, YYYY-MM-DD' },
      venue: { type: 'string' },
      city: { type: 'string' },
    },
  };
  const markdown = '# Jazz night\n\nDate: 2026-12-12\n\nCity: Tartu\n\nCities by the water.';
  const text = jsonStep({ ...page, markdown, facts: 'author: Ann' }, { schema: event }, 10_000).messages[0]?.text ?? '';
  assert.match(text, /Fields: date \(date, YYYY-MM-DD\), see "Date: 2026-12-12"; venue; city, see "City: Tartu"\./);
});

test('the page’s facts go ahead of its text, inside the page, and keep their place on a long page', () => {
  const facts = 'author: Ann Lee\nBy Jonas Berg';
  const short = jsonStep({ ...page, facts }, { schema: product }, 10_000).messages[0]?.text ?? '';
  assert.ok(short.indexOf('<page>') < short.indexOf('By Jonas Berg'), 'inside the page: data, not instructions');
  assert.ok(short.indexOf('By Jonas Berg') < short.indexOf('# Steel kettle'), 'ahead of the text');
  const filler = Array.from({ length: 200 }, (_, i) => `Paragraph ${i} tells the price history of kettles.`);
  const long = jsonStep({ ...page, facts, markdown: filler.join('\n\n') }, { schema: product }, 2_000);
  const text = long.messages[0]?.text ?? '';
  assert.match(text, /author: Ann Lee\nBy Jonas Berg/, 'the facts are not ranked away');
  assert.ok(text.length < 2_600, `within the budget (${text.length})`);
  const huge = jsonStep({ ...page, facts: 'x'.repeat(5_000) }, { schema: product }, 2_000).messages[0]?.text ?? '';
  assert.equal(/x{100,}/.exec(huge)?.[0].length, 600, 'facts take their share of the budget, no more');
});

test('schemaWords: property names split into words, descriptions and nested names', () => {
  const words = schemaWords({
    properties: {
      unitPrice: { description: 'in euros' },
      job_title: {},
      list: { items: { properties: { zipCode: {} } } },
    },
  });
  assert.deepEqual(words, ['unit Price', 'in euros', 'job title', 'list', 'zip Code']);
});

test('checkJson: nulls pass, a value of the wrong type is an issue at its path, a prompt-only answer must be an object', () => {
  assert.deepEqual(checkJson(product, { name: 'Kettle', price: null, sizes: null }), []);
  const issues = checkJson(product, { name: 'Kettle', price: 'cheap', sizes: null });
  assert.equal(issues[0]?.path, 'price');
  assert.ok(
    checkJson(product, { name: 'Kettle', price: 3, sizes: null, extra: 1 }).length > 0,
    'no field the schema lacks',
  );
  assert.deepEqual(checkJson(undefined, { anything: 1 }), []);
  assert.equal(checkJson(undefined, [1])[0]?.message, 'not a JSON object');
});

test('summaryOf: the trimmed text, or nothing for an empty one', () => {
  assert.equal(summaryOf({ summary: '  Two lines.  ' }), 'Two lines.');
  assert.equal(summaryOf({ summary: ' ' }), undefined);
  assert.equal(summaryOf(null), undefined);
});
