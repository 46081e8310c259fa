import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extract } from '@wap/extract';
import { jsonLdFacts, leftOutFacts, MAX_FACTS_CHARS, metadataFacts, pageFacts } from './page-facts.js';

const ARTICLE = `<!doctype html><html><head><title>Rivers</title>
<meta name="author" content="Ann Lee"><meta property="og:site_name" content="River News">
<meta name="viewport" content="width=device-width"><meta property="og:image" content="https://x.test/a.png">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Trail kettle",
"brand":{"@type":"Brand","name":"Acme"},"offers":{"@type":"Offer","price":"20.50","priceCurrency":"EUR","url":"https://x.test/k"}}</script>
<script type="application/ld+json">{not json</script>
</head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
<main><article><h1>Rivers of Porto</h1><p class="byline">By Jonas Berg</p>
<p>The rivers of Porto rise every spring as snow melts in the hills above the town, and the boats wait.</p>
<p>Season: spring</p></article></main>
<aside class="sidebar"><ul><li>Brand: Acme</li><li>Weight: 2 kg</li></ul></aside>
<footer><p>© 2026 Example Ltd. All rights reserved. Privacy policy.</p></footer></body></html>`;

test('a byline and the labelled lines main content left out are facts; navigation, footers and kept lines are not', () => {
  const main = extract(ARTICLE, 'https://x.test/a', { formats: ['text', 'metadata'] });
  const whole = extract(ARTICLE, 'https://x.test/a', { formats: ['text'], onlyMainContent: false });
  assert.doesNotMatch(main.text, /Jonas Berg/, 'the premise: main content drops the byline');
  const lines = leftOutFacts(main.text, whole.text);
  assert.deepEqual(lines, ['By Jonas Berg', 'Brand: Acme', 'Weight: 2 kg']);
});

test('metadata worth reading goes as name: value lines; rendering hints, links and the title do not', () => {
  const lines = metadataFacts({
    title: 'Rivers',
    author: 'Ann Lee',
    ogSiteName: 'River News',
    viewport: 'width=device-width',
    ogImage: 'https://x.test/a.png',
    'google-site-verification': 'abc',
    articleTag: ['rivers', 'spring'],
    'product:price:amount': '20.50',
  });
  assert.deepEqual(lines, [
    'author: Ann Lee',
    'ogSiteName: River News',
    'articleTag: rivers, spring',
    'product:price:amount: 20.50',
  ]);
});

test('JSON-LD goes as typed paths to its values; its context, links and broken blocks are left out', () => {
  assert.deepEqual(jsonLdFacts(ARTICLE), [
    'Product.name: Trail kettle',
    'Product.brand.name: Acme',
    'Product.offers.price: 20.50',
    'Product.offers.priceCurrency: EUR',
  ]);
  const graph = `<script type=application/ld+json>{"@graph":[{"@type":"Person","name":"Ann"},{"@type":"JobPosting","title":"Data engineer","hiringOrganization":{"name":"Northwind"}}]}</script>`;
  assert.deepEqual(jsonLdFacts(graph), [
    'Person.name: Ann',
    'JobPosting.title: Data engineer',
    'JobPosting.hiringOrganization.name: Northwind',
  ]);
});

test('the facts of a page: its metadata, JSON-LD and left-out lines, at most MAX_FACTS_CHARS', () => {
  const main = extract(ARTICLE, 'https://x.test/a', { formats: ['text', 'metadata'] });
  const whole = extract(ARTICLE, 'https://x.test/a', { formats: ['text'], onlyMainContent: false });
  const facts = pageFacts(main, ARTICLE, whole.text);
  for (const line of ['author: Ann Lee', 'Product.brand.name: Acme', 'By Jonas Berg'])
    assert.ok(facts.split('\n').includes(line), `${line} in ${facts}`);
  assert.doesNotMatch(facts, /Home|Example Ltd|viewport/);
  const many = {
    text: '',
    metadata: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`m${i}`, 'x'.repeat(20)])),
  };
  const capped = pageFacts(many, undefined, undefined);
  assert.ok(capped.length <= MAX_FACTS_CHARS && capped.length > MAX_FACTS_CHARS - 40, `${capped.length} characters`);
  assert.ok(capped.endsWith('x'), 'whole lines only');
});
