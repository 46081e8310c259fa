// GET /v1/agent through the fleet (docs/agent.md, "Listing runs"): a
// workspace's runs newest first as summaries that agree with GET
// /v1/agent/{id}, paged by cursor, filtered by status, never another
// workspace's; bad paging input is 400 bad_request naming the query field.
// The runs are driven by the scripted model on loopback.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import { call } from './api.js';
import { asking } from './scripted-agent.js';
import { fleet, scripted, sharedFleet } from './shared-fleet.js';

interface Summary {
  id: string;
  status: string;
  outcome: string | null;
  pausedFor: string | null;
  task: string;
  usage: { credits: number; meters: Record<string, number> };
  createdAt: string;
  finishedAt: string | null;
}
interface Page {
  runs: Summary[];
  nextCursor: string | null;
}

let key: string;
let otherKey: string;
/** The runs the tests list: two of `key`'s (a settled one, then a paused one) and one of `otherKey`'s. */
let settled: Summary;
let paused: Summary;
let theirs: Summary;

const list = (query = '', apiKey = key) => call<Page>(fleet.gatewayUrl, 'GET', `/v1/agent${query}`, { key: apiKey });
const read = async (apiKey: string, id: string) =>
  (await call<{ run: Summary }>(fleet.gatewayUrl, 'GET', `/v1/agent/${id}`, { key: apiKey })).body.run;

/** Submits `task` and answers the run once `done` says so. */
async function runUntil(apiKey: string, task: string, done: (run: Summary) => boolean): Promise<Summary> {
  const submitted = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/agent', { key: apiKey, body: { task } });
  assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
  let run: Summary | undefined;
  await until(
    `run "${task}" to reach the state the test waits for`,
    async () => {
      run = await read(apiKey, submitted.body.id);
      return done(run);
    },
    90_000,
  );
  return run as Summary;
}

describe('GET /v1/agent', () => {
  before(async () => {
    await sharedFleet('browsers');
    scripted.scripts.set('Pick a colour for the list', asking('Which colour?'));
    ({ apiKey: key } = await fleet.workspace('pro'));
    ({ apiKey: otherKey } = await fleet.workspace('pro'));
    // A task without a script finishes at once; the second is submitted after the first settled: it is newer.
    settled = await runUntil(key, 'Finish at once for the list', (r) => r.status === 'settled');
    paused = await runUntil(key, 'Pick a colour for the list', (r) => r.status === 'paused');
    theirs = await runUntil(otherKey, 'Finish at once for the other list', (r) => r.status === 'settled');
  });

  test('a workspace lists its runs newest first, each a summary agreeing with GET /v1/agent/{id}', async () => {
    const r = await list();
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(
      r.body.runs.map((run) => run.id),
      [paused.id, settled.id],
    );
    assert.equal(r.body.nextCursor, null);
    const [newest, oldest] = r.body.runs;
    assert.equal(newest?.status, 'paused');
    assert.equal(newest?.pausedFor, 'question');
    assert.equal(newest?.task, 'Pick a colour for the list');
    assert.equal(oldest?.outcome, 'completed');
    // A settled run no longer changes: its summary is its GET's fields, spend and times included.
    const full = await read(key, settled.id);
    for (const field of ['id', 'status', 'outcome', 'pausedFor', 'task', 'usage', 'createdAt', 'finishedAt'] as const)
      assert.deepEqual(oldest?.[field], full[field], field);
    assert.ok(full.usage.credits > 0, 'a run that used a browser has a spend to show');
  });

  test('the cursor pages one run at a time, and the last page says there is no more', async () => {
    const first = await list('?limit=1');
    assert.deepEqual(
      first.body.runs.map((run) => run.id),
      [paused.id],
    );
    assert.ok(first.body.nextCursor, 'another page follows');
    const second = await list(`?limit=1&cursor=${encodeURIComponent(first.body.nextCursor ?? '')}`);
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.deepEqual(
      second.body.runs.map((run) => run.id),
      [settled.id],
    );
    assert.equal(second.body.nextCursor, null);
  });

  test('status keeps the runs in that status', async () => {
    for (const [status, ids] of [
      ['paused', [paused.id]],
      ['settled', [settled.id]],
      ['queued', []],
      ['running', []],
    ] as const) {
      const r = await list(`?status=${status}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(
        r.body.runs.map((run) => run.id),
        ids,
        status,
      );
    }
  });

  test('another workspace sees only its own runs, with or without the first one’s cursor', async () => {
    const cursor = (await list('?limit=1')).body.nextCursor ?? '';
    for (const [query, expected] of [
      ['', [theirs.id]],
      // The cursor names a place in time, not a workspace: their only run is newer than that place.
      [`?cursor=${encodeURIComponent(cursor)}`, []],
      ['?status=settled', [theirs.id]],
      ['?status=paused', []],
    ] as const) {
      const r = await list(query, otherKey);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(
        r.body.runs.map((run) => run.id),
        expected,
        query || 'no query',
      );
    }
  });

  test('a limit out of 1..100, an unknown status or a cursor the route did not give is 400 bad_request naming it', async () => {
    const cases: [string, string][] = [
      ['?limit=0', 'query.limit'],
      ['?limit=101', 'query.limit'],
      ['?limit=ten', 'query.limit'],
      ['?status=done', 'query.status'],
      ['?cursor=not-a-cursor', 'query.cursor'],
    ];
    for (const [query, path] of cases) {
      const r = await call<{ code: string; details?: { issues?: { path: string }[] } }>(
        fleet.gatewayUrl,
        'GET',
        `/v1/agent${query}`,
        { key },
      );
      assert.equal(r.status, 400, `${query}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, 'bad_request', query);
      assert.deepEqual(
        r.body.details?.issues?.map((i) => i.path),
        [path],
        query,
      );
    }
  });
});
