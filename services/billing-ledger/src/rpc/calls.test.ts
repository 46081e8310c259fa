// ListCalls through the real gRPC server and database: the calls as they were
// answered, newest first, paged by an opaque cursor, one workspace's only.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ledger } from '@wap/proto';
import { callsQuery } from '../store/reads.js';
import {
  freshDatabase,
  type InProcessLedger,
  refusal,
  serveLedger,
  TestClock,
  type TestDatabase,
} from '../test-support.js';

const { Meter, Plan } = ledger;

let database: TestDatabase;
let server: InProcessLedger;
const clock = new TestClock();
let seq = 0;
const key = () => `calls-key-${++seq}`;

before(async () => {
  database = await freshDatabase();
  server = await serveLedger(database.url, clock.now);
});
after(async () => {
  await server?.close();
  await database?.drop();
});

async function account(name: string) {
  await server.client.ensureAccount({ workspaceId: name, plan: Plan.PRO });
  return name;
}

/** Every call of the workspace, page after page of `limit`. */
async function walk(workspaceId: string, limit: number) {
  const pages: ledger.BillableCall[][] = [];
  let cursor = '';
  do {
    const page = await server.client.listCalls({ workspaceId, limit, cursor });
    pages.push(page.calls);
    cursor = page.nextCursor;
  } while (cursor && pages.length < 50);
  return pages;
}

test('each settle and charge is listed newest first with the summary it answered', async () => {
  const c = server.client;
  const workspaceId = await account('calls-listed');
  const hold = await c.authorize({
    workspaceId,
    idempotencyKey: key(),
    capability: 'crawl',
    millicredits: 10_000n,
    reference: 'crawl-1',
  });
  const settled = await c.settle({
    holdId: hold.holdId,
    idempotencyKey: key(),
    meters: [{ meter: Meter.PAGE_LOAD, quantity: 3n }],
  });
  clock.advance(1);
  const charged = await c.charge({
    workspaceId,
    idempotencyKey: key(),
    capability: 'search',
    reference: 'op_search',
    meters: [
      { meter: Meter.SEARCH_RESULT, quantity: 5n },
      { meter: Meter.PAGE_LOAD, quantity: 2n },
    ],
  });
  const listed = await c.listCalls({ workspaceId });
  assert.deepEqual(
    listed.calls.map((call) => [call.capability, call.reference, Number(call.at?.seconds) * 1000]),
    [
      ['search', 'op_search', clock.now().getTime()],
      ['crawl', 'crawl-1', clock.now().getTime() - 1000],
    ],
    'newest first; a settle carries the reference its hold was given',
  );
  assert.deepEqual(listed.calls[0]?.usage, charged.usage, "the charge's own answer");
  assert.deepEqual(listed.calls[1]?.usage, settled.usage, "the settle's own answer");
  assert.equal(listed.nextCursor, '', 'no page after the last');
});

test('pages walk every call once, ties in time included, and another workspace sees none', async () => {
  const c = server.client;
  const workspaceId = await account('calls-paged');
  const other = await account('calls-paged-other');
  // Seven calls in three instants: the id orders calls of the same millisecond.
  for (const n of [1, 2, 3, 4, 5, 6, 7]) {
    if (n === 3 || n === 6) clock.advance(0.5);
    await c.charge({
      workspaceId,
      idempotencyKey: key(),
      capability: 'scrape',
      reference: `op_${n}`,
      meters: [{ meter: Meter.PAGE_LOAD, quantity: 1n }],
    });
  }
  await c.charge({
    workspaceId: other,
    idempotencyKey: key(),
    capability: 'scrape',
    reference: 'op_elsewhere',
    meters: [{ meter: Meter.PAGE_LOAD, quantity: 1n }],
  });
  const whole = (await c.listCalls({ workspaceId, limit: 100 })).calls;
  assert.equal(whole.length, 7);
  const pages = await walk(workspaceId, 3);
  assert.deepEqual(
    pages.map((p) => p.length),
    [3, 3, 1],
  );
  assert.deepEqual(
    pages.flat().map((call) => call.id),
    whole.map((call) => call.id),
    'the pages, joined, are the whole list in its order',
  );
  const times = whole.map((call) => Number(call.at?.seconds) * 1000 + Math.round((call.at?.nanos ?? 0) / 1e6));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => b - a),
    'newest first',
  );
  assert.deepEqual(
    (await c.listCalls({ workspaceId: other })).calls.map((call) => call.reference),
    ['op_elsewhere'],
  );
  assert.deepEqual((await c.listCalls({ workspaceId: 'calls-nobody' })).calls, []);
});

test('a cursor or limit it did not give is bad_request naming the field', async () => {
  const c = server.client;
  const workspaceId = await account('calls-refused');
  for (const cursor of ['nope', Buffer.from('["2026-01-01T00:00:00.000Z","not-a-uuid"]').toString('base64url')]) {
    const err = await refusal(c.listCalls({ workspaceId, cursor }));
    assert.equal(err.code, 'bad_request');
    assert.deepEqual(
      (err.details as { issues: { path: string }[] }).issues.map((i) => i.path),
      ['cursor'],
    );
  }
  for (const limit of [-1, 101]) {
    const err = await refusal(c.listCalls({ workspaceId, limit }));
    assert.equal(err.code, 'bad_request');
    assert.deepEqual(
      (err.details as { issues: { path: string }[] }).issues.map((i) => i.path),
      ['limit'],
    );
  }
  const err = await refusal(c.listCalls({ workspaceId: '' }));
  assert.equal(err.code, 'bad_request');
});

test('a page after a cursor is an index range, with no sort', async () => {
  const query = callsQuery('calls-plan', 51, { at: clock.now(), id: '00000000-0000-4000-8000-000000000000' });
  const client = await server.db.pool.connect();
  try {
    await client.query('BEGIN');
    // The table is tiny here: without this the planner would rightly read it whole.
    await client.query('SET LOCAL enable_seqscan = off');
    const { rows } = await client.query<{ 'QUERY PLAN': string }>({
      text: `EXPLAIN ${query.text}`,
      values: query.values,
    });
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    assert.match(plan, /Index Scan Backward using usage_records_workspace_id_created_at_id_idx/, plan);
    assert.match(plan, /Index Cond: .*ROW\(created_at, id\) < ROW/, plan);
    assert.doesNotMatch(plan, /Sort/, plan);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
});
