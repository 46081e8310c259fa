import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isApiError } from '@wap/errors';
import { type FakeSearch, type Indexed, startFakeBrave, startFakeSearxng } from '@wap/testsite';
import { brave, type SearchQuery, searxng } from './search-providers.js';

const corpus: Indexed[] = Array.from({ length: 45 }, (_, i) => ({
  url: `https://site${i % 3}.example/harbour/${i}`,
  title: `Harbour story ${i}`,
  content: `The harbour master's log, entry ${i}.`,
}));
corpus.push({ url: 'https://other.example/mill', title: 'The old mill', content: 'Grain and water.' });

let sx: FakeSearch;
let bv: FakeSearch;
before(async () => {
  sx = await startFakeSearxng(corpus);
  bv = await startFakeBrave(corpus, 'token-1');
});
after(async () => {
  await sx.close();
  await bv.close();
});

const q = (query: string, limit: number): SearchQuery => ({
  workspaceId: 'w',
  query,
  limit,
  lang: 'en',
  country: 'gb',
});
const signal = new AbortController().signal;
const rejection = (p: Promise<unknown>) =>
  p.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );

for (const [name, make] of [
  ['searxng', () => searxng(sx.url)],
  ['brave', () => brave(bv.url, 'token-1')],
] as const) {
  test(`${name}: results in order, paged to the limit, without duplicates`, async () => {
    const out = await make().search(q('harbour', 25), signal);
    assert.equal(out.length, 25);
    assert.deepEqual(
      out.map((r) => r.url),
      corpus.slice(0, 25).map((d) => d.url),
    );
    assert.equal(out[0]?.title, 'Harbour story 0');
    assert.match(out[0]?.description ?? '', /harbour master/);
    assert.deepEqual(await make().search(q('nothing-matches', 10), signal), []);
  });
}

test('searxng: asks for JSON with the language, a page at a time', async () => {
  sx.requests.length = 0;
  await searxng(sx.url).search(q('mill', 5), signal);
  const first = sx.requests[0];
  assert.equal(first?.path, '/search');
  assert.equal(first?.query.get('format'), 'json');
  assert.equal(first?.query.get('language'), 'en');
  assert.equal(first?.query.get('pageno'), '1');
});

test('brave: sends the subscription token, count and country', async () => {
  bv.requests.length = 0;
  await brave(bv.url, 'token-1').search(q('mill', 5), signal);
  const first = bv.requests[0];
  assert.equal(first?.headers['x-subscription-token'], 'token-1');
  assert.equal(first?.query.get('count'), '5');
  assert.equal(first?.query.get('country'), 'gb');
});

test('a provider that refuses is search_refused with its reason; one that is down is capability_unavailable', async () => {
  const wrongToken = await rejection(brave(bv.url, 'wrong').search(q('mill', 5), signal));
  assert.ok(isApiError(wrongToken) && wrongToken.code === 'search_refused', String(wrongToken));
  assert.match((wrongToken.details as { reason: string }).reason, /brave answered 401.*SUBSCRIPTION_TOKEN_INVALID/);

  sx.failWith = { status: 403, body: 'Forbidden' };
  try {
    const refused = await rejection(searxng(sx.url).search(q('mill', 5), signal));
    assert.ok(isApiError(refused) && refused.code === 'search_refused', String(refused));
    sx.failWith = { status: 429, body: 'Too Many Requests', headers: { 'retry-after': '30' } };
    const limited = await rejection(searxng(sx.url).search(q('mill', 5), signal));
    assert.ok(isApiError(limited) && limited.code === 'capability_unavailable', String(limited));
    assert.deepEqual(limited.details, { capability: 'search', retryAfterSeconds: 30 });
  } finally {
    sx.failWith = null;
  }
  const down = await rejection(searxng('http://127.0.0.1:1/').search(q('mill', 5), signal));
  assert.ok(isApiError(down) && down.code === 'capability_unavailable', String(down));
});
