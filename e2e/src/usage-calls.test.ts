// GET /v1/usage/calls through a whole fleet: each billed scrape listed newest
// first with the usage its answer carried, paged by cursor, one workspace's only.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Fleet } from '@wap/fleet';
import { startFleet } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { call } from './api.js';

interface Usage {
  credits: number;
  meters: Record<string, number>;
}
interface BillableCall {
  id: string;
  at: string;
  capability: string;
  reference: string;
  usage: Usage;
}
interface CallsPage {
  calls: BillableCall[];
  nextCursor: string | null;
}

let fleet: Fleet;
let site: TestSite;
let key: string;
let otherKey: string;
/** The three scrapes' answers, in the order they were made. */
const scraped: Usage[] = [];

before(async () => {
  // The test site on 127.0.0.2, the one loopback address the fleet's egress guard lets through.
  site = await startTestSite({ pages: 5, host: '127.0.0.2' });
  fleet = await startFleet({ env: { EGRESS_ALLOW: '127.0.0.2/32' } });
  ({ apiKey: key } = await fleet.workspace('pro'));
  ({ apiKey: otherKey } = await fleet.workspace('pro'));
});
after(async () => {
  await fleet?.stop();
  await fleet?.dropDatabases();
  await site?.close();
});

const calls = (query = '', apiKey = key) =>
  call<CallsPage>(fleet.gatewayUrl, 'GET', `/v1/usage/calls${query}`, { key: apiKey });

async function scrape(page: number, headers: Record<string, string> = {}) {
  const r = await call<{ usage: Usage }>(fleet.gatewayUrl, 'POST', '/v1/scrape', {
    key,
    body: { url: `${site.url}/articles/${page}`, formats: ['markdown'], engine: 'fetch' },
    headers,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r;
}

function issuePaths(body: unknown): string[] {
  const b = body as { code?: string; details?: { issues: { path: string }[] } };
  assert.equal(b.code, 'bad_request', JSON.stringify(body));
  return (b.details?.issues ?? []).map((i) => i.path);
}

test('each scrape is listed newest first with the usage its answer carried', async () => {
  const first = await scrape(1, { 'Idempotency-Key': 'usage-calls-first' });
  // A retry with the same key is answered again, not billed again: no call of its own.
  const replay = await scrape(1, { 'Idempotency-Key': 'usage-calls-first' });
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  scraped.push(first.body.usage, (await scrape(2)).body.usage, (await scrape(3)).body.usage);
  for (const usage of scraped) assert.ok(usage.credits > 0, JSON.stringify(usage));

  const r = await calls();
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.nextCursor, null, 'three calls fit the default page');
  assert.deepEqual(
    r.body.calls.map((c) => c.capability),
    ['scrape', 'scrape', 'scrape'],
  );
  assert.deepEqual(
    r.body.calls.map((c) => c.usage),
    [...scraped].reverse(),
    'newest first, each with the credits and meters of its own answer',
  );
  const times = r.body.calls.map((c) => Date.parse(c.at));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => b - a),
    'newest first by time',
  );
  // The reference of a scrape is the gateway's operation id of the request (docs/api.md); a keyed one derives from the key.
  const references = r.body.calls.map((c) => c.reference);
  assert.match(references[2] ?? '', /^idem_[0-9a-f]{40}$/);
  for (const reference of references.slice(0, 2)) assert.match(reference, /^op_[0-9a-f]{32}$/);
  assert.equal(new Set(references).size, 3, 'one reference per request');
});

test('pages of a cursor walk every call once, in the same order', async () => {
  const whole = (await calls()).body.calls;
  assert.equal(whole.length, scraped.length);
  const walked: BillableCall[] = [];
  const sizes: number[] = [];
  let cursor: string | null = '';
  while (cursor !== null && sizes.length < 10) {
    const r = await calls(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    walked.push(...r.body.calls);
    sizes.push(r.body.calls.length);
    cursor = r.body.nextCursor;
  }
  assert.deepEqual(sizes, [2, 1]);
  assert.deepEqual(walked, whole);
});

test('another workspace sees none of it, with or without the first one’s cursor', async () => {
  const mine = await calls('?limit=1');
  assert.ok(mine.body.nextCursor, 'a cursor to borrow');
  for (const query of ['', `?cursor=${encodeURIComponent(mine.body.nextCursor ?? '')}`]) {
    const r = await calls(query, otherKey);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, { calls: [], nextCursor: null }, query);
  }
});

test('a limit out of 1..100 or a cursor the route did not give is 400 bad_request naming it', async () => {
  for (const limit of ['0', '101', 'ten']) {
    const r = await calls(`?limit=${limit}`);
    assert.equal(r.status, 400, limit);
    assert.deepEqual(issuePaths(r.body), ['query.limit'], limit);
  }
  const r = await calls('?cursor=not-a-cursor');
  assert.equal(r.status, 400);
  assert.deepEqual(issuePaths(r.body), ['query.cursor']);
});
