// ListRuns against real Postgres: newest first by (created_at, id), paged
// with an opaque cursor that neither skips nor repeats a run (ties in time
// included), filtered by status, one workspace never seeing another's, and
// bad input refused as bad_request naming the field.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { isApiError } from '@wap/errors';
import { agent } from '@wap/proto';
import type { FreshDatabase } from '@wap/testkit';
import { type AgentDatabase, openAgentDatabase } from '../store/database.js';
import { RunStore } from '../store/runs.js';
import { freshDatabase } from '../test-support.js';
import type { AgentRpcDeps } from './deps.js';
import { listRuns } from './list-runs.js';

/** A request as a test writes it: only the fields it sets. */
type Query = { workspaceId: string; status?: string; limit?: number; cursor?: string };

let database: FreshDatabase;
let db: AgentDatabase;
let list: (req: Query) => Promise<agent.ListRunsResponse>;

before(async () => {
  database = await freshDatabase();
  db = openAgentDatabase(database.url);
  const handler = listRuns({ store: new RunStore(db) } as unknown as AgentRpcDeps);
  list = (req) => handler(create(agent.ListRunsRequestSchema, req));
});

after(async () => {
  await db.$disconnect();
  await database.drop();
});

/** A run of `workspaceId` created at `at`, in `status`, with `task`. */
async function runAt(workspaceId: string, at: Date, status = 'queued', task = 'a task'): Promise<string> {
  const id = randomUUID();
  await db.agentRun.create({
    data: {
      id,
      workspaceId,
      requestId: randomUUID(),
      task,
      model: 'scripted',
      maxCredits: 10,
      maxSteps: 5,
      status,
      createdAt: at,
      ...(status === 'settled' && { outcome: 'completed', finishedAt: at }),
      ...(status === 'paused' && { pausedFor: 'question', question: 'Which?' }),
    },
  });
  return id;
}

/** Every page of a listing, following its cursors; the ids in the order read. */
async function readAll(req: Query): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor = '';
  let pages = 0;
  do {
    const out = await list({ ...req, cursor });
    ids.push(...out.runs.map((r) => r.id));
    cursor = out.nextCursor;
    pages += 1;
    assert.ok(pages < 50, 'the cursor moves on');
  } while (cursor);
  return { ids, pages };
}

/** Ids as the listing orders them: newest first, the larger id first at one time. */
const newestFirst = (runs: { id: string; at: Date }[]) =>
  [...runs]
    .sort((a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map((r) => r.id);

describe('ListRuns', () => {
  test('pages newest first with the cursor, every run once, runs of one millisecond included', async () => {
    const ws = randomUUID();
    const t0 = Date.parse('2026-11-01T10:00:00.000Z');
    const runs: { id: string; at: Date }[] = [];
    // Seven runs, three of them at the same millisecond: a page boundary falls among them.
    for (const offset of [0, 1_000, 2_000, 2_000, 2_000, 3_000, 4_000]) {
      const at = new Date(t0 + offset);
      runs.push({ id: await runAt(ws, at), at });
    }
    const first = await list({ workspaceId: ws, limit: 3 });
    assert.equal(first.runs.length, 3);
    assert.notEqual(first.nextCursor, '', 'more follow');
    const all = await readAll({ workspaceId: ws, limit: 3 });
    assert.deepEqual(all.ids, newestFirst(runs));
    assert.equal(all.pages, 3);
    for (const limit of [1, 2, 4, 7, 100])
      assert.deepEqual((await readAll({ workspaceId: ws, limit })).ids, newestFirst(runs), `limit ${limit}`);
    assert.equal((await list({ workspaceId: ws, limit: 7 })).nextCursor, '', 'an exact last page says so');
    assert.equal((await list({ workspaceId: ws })).runs.length, 7, 'the default limit (20) holds them all');

    // A run submitted while a reader pages is not read twice and does not shift the pages after the cursor.
    const newer = await runAt(ws, new Date(t0 + 5_000));
    const next = await list({ workspaceId: ws, limit: 3, cursor: first.nextCursor });
    assert.ok(!next.runs.some((r) => r.id === newer));
    assert.deepEqual(
      next.runs.map((r) => r.id),
      newestFirst(runs).slice(3, 6),
    );
  });

  test('a summary: state, a task cut at 200 characters, times; another status filters', async () => {
    const ws = randomUUID();
    const t0 = Date.parse('2026-11-02T10:00:00.000Z');
    const settled = await runAt(ws, new Date(t0), 'settled', 'x'.repeat(5_000));
    const paused = await runAt(ws, new Date(t0 + 1), 'paused');
    const queued = await runAt(ws, new Date(t0 + 2), 'queued');
    const running = await runAt(ws, new Date(t0 + 3), 'running');
    const queued2 = await runAt(ws, new Date(t0 + 4), 'queued');

    const all = await list({ workspaceId: ws });
    assert.deepEqual(
      all.runs.map((r) => r.id),
      [queued2, running, queued, paused, settled],
    );
    const done = all.runs.find((r) => r.id === settled);
    assert.equal(done?.task, 'x'.repeat(200));
    assert.equal(done?.outcome, 'completed');
    assert.equal(done?.finishedAt && timestampDate(done.finishedAt).getTime(), t0);
    assert.equal(done?.createdAt && timestampDate(done.createdAt).getTime(), t0);
    assert.equal(all.runs.find((r) => r.id === paused)?.pausedFor, 'question');
    assert.equal(all.runs.find((r) => r.id === queued)?.outcome, '', 'no outcome before settling');

    for (const [status, ids] of [
      ['queued', [queued2, queued]],
      ['running', [running]],
      ['paused', [paused]],
      ['settled', [settled]],
    ] as const) {
      const out = await readAll({ workspaceId: ws, status, limit: 1 });
      assert.deepEqual(out.ids, ids, status);
    }
  });

  test('one workspace never sees another’s runs, even with the other’s cursor', async () => {
    const mine = randomUUID();
    const theirs = randomUUID();
    const t0 = Date.parse('2026-11-03T10:00:00.000Z');
    const a1 = await runAt(mine, new Date(t0));
    const b1 = await runAt(theirs, new Date(t0 + 1));
    const a2 = await runAt(mine, new Date(t0 + 2));
    const b2 = await runAt(theirs, new Date(t0 + 3));
    assert.deepEqual((await readAll({ workspaceId: mine, limit: 1 })).ids, [a2, a1]);
    assert.deepEqual((await readAll({ workspaceId: theirs, limit: 1 })).ids, [b2, b1]);
    const cursor = (await list({ workspaceId: mine, limit: 1 })).nextCursor;
    assert.deepEqual(
      (await list({ workspaceId: theirs, cursor })).runs.map((r) => r.id),
      [b1],
      'a cursor names a position, not a workspace: it reads only the caller’s runs',
    );
    assert.deepEqual((await list({ workspaceId: randomUUID() })).runs, [], 'a workspace with none');
  });

  test('a cursor it did not give, a limit past 100 or below 1, an unknown status: bad_request naming it', async () => {
    const ws = randomUUID();
    for (const [req, path] of [
      [{ cursor: 'not-a-cursor' }, 'cursor'],
      [{ cursor: Buffer.from('["2026-11-01T00:00:00Z","x"]').toString('base64url') }, 'cursor'],
      [{ limit: 101 }, 'limit'],
      [{ limit: -1 }, 'limit'],
      [{ status: 'done' }, 'status'],
      [{ status: 'SETTLED' }, 'status'],
    ] as const) {
      const err = await list({ workspaceId: ws, ...req }).then(
        () => assert.fail(`expected bad_request for ${JSON.stringify(req)}`),
        (e: unknown) => e,
      );
      assert.ok(isApiError(err) && err.code === 'bad_request', String(err));
      assert.deepEqual(
        ((err.details?.issues ?? []) as { path: string }[]).map((i) => i.path),
        [path],
      );
    }
  });
});
