// The runs' pauses against real Postgres: each kind opened and completed by
// the one resume path, refused when the run waits for something else, the
// completion kept until the loop reads it, and the loop's verbs fenced by its
// claim.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FreshDatabase } from '@wap/testkit';
import { claimFor, freshDatabase, submitTestRun } from '../test-support.js';
import { type AgentDatabase, openAgentDatabase } from './database.js';
import { ClaimLost } from './fenced.js';
import { PauseStore, readApproval } from './pauses.js';
import { RunStore } from './runs.js';

let database: FreshDatabase;
let db: AgentDatabase;
let store: RunStore;
let pauses: PauseStore;
const workspaceId = randomUUID();

before(async () => {
  database = await freshDatabase();
  db = openAgentDatabase(database.url);
  store = new RunStore(db);
  pauses = new PauseStore(db);
});

after(async () => {
  await db.$disconnect();
  await database.drop();
});

/** A run `replica-a` has claimed and started on a browser. */
async function liveRun() {
  const id = await submitTestRun(store, workspaceId);
  await claimFor(store, 'replica-a', id);
  const loop = store.fenced(id, 'replica-a');
  const sessionId = randomUUID();
  await loop.started(sessionId);
  return { id, loop, sessionId };
}

const kinds = async (id: string) => (await store.events(id, ['summary'], 0n, 100)).map((e) => e.kind);

describe('pauses', () => {
  test('answers only a question, control only a run with a browser, and events from RPCs and loop interleave', async () => {
    const id = await submitTestRun(store, workspaceId);
    assert.equal(await pauses.answer(workspaceId, id, 'too early'), 'not_asked');
    assert.deepEqual(await pauses.control(workspaceId, id, true), { refused: 'not_live' });
    await claimFor(store, 'replica-a', id);
    const loop = store.fenced(id, 'replica-a');
    await loop.started(randomUUID());
    await pauses.open(id, 'replica-a', 'question', 'Which?');
    const answered = await pauses.answer(workspaceId, id, 'That one');
    assert.ok(typeof answered === 'object' && answered.status === 'running' && answered.reply === 'That one');
    const taken = await pauses.control(workspaceId, id, true);
    assert.ok('row' in taken && taken.row.pausedFor === 'control');
    assert.deepEqual(
      await pauses.control(workspaceId, id, true).then((t) => 'row' in t),
      true,
      'taking twice is one take',
    );
    const back = await pauses.control(workspaceId, id, false);
    assert.ok('row' in back && back.row.status === 'running');
    assert.deepEqual(await pauses.control(workspaceId, id, false), { refused: 'not_taken' });
    await loop.event({ level: 'step', kind: 'step', message: 'after' });
    const seqs = (await store.events(id, ['summary', 'step', 'debug'], 0n, 100)).map((e) => Number(e.seq));
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
      'one sequence, no gaps, whoever wrote',
    );
  });

  test('an approval takes a decision, not words; a question takes words, not a decision', async () => {
    const { id } = await liveRun();
    await pauses.open(id, 'replica-a', 'approval', 'Approve the purchase of a lamp for 12.50 EUR?');
    const paused = await store.get(workspaceId, id);
    assert.deepEqual(
      [paused?.status, paused?.pausedFor, paused?.question],
      ['paused', 'approval', 'Approve the purchase of a lamp for 12.50 EUR?'],
    );
    assert.equal(await pauses.answer(workspaceId, id, 'yes'), 'not_asked');
    const approved = await pauses.approve(workspaceId, id, true, 'sealed-cvc');
    assert.ok(typeof approved === 'object');
    assert.deepEqual(readApproval(approved.reply ?? ''), { approved: true, sealedCvc: 'sealed-cvc' });
    assert.equal(approved.question, null, 'the prompt goes with the pause');
    assert.equal(await pauses.approve(workspaceId, id, false), 'no_open_purchase', 'completed once');
    await pauses.taken(id, 'replica-a');
    await pauses.open(id, 'replica-a', 'question', 'Which colour?');
    assert.equal(await pauses.approve(workspaceId, id, true), 'no_open_purchase');
    await pauses.answer(workspaceId, id, 'green');
    await pauses.taken(id, 'replica-a');
    await pauses.open(id, 'replica-a', 'approval', 'Approve this action?');
    const denied = await pauses.approve(workspaceId, id, false);
    assert.ok(typeof denied === 'object');
    assert.deepEqual(readApproval(denied.reply ?? ''), { approved: false });
    assert.deepEqual(await kinds(id), [
      'status', // queued
      'answer',
      'status',
      'answer',
      'status',
      'answer',
      'status',
    ]);
    assert.equal(await pauses.answer(randomUUID(), id, 'x'), 'not_found', "another workspace's run does not exist");
  });

  test('a completion stays on the row until the loop reads it; a take meanwhile stays open', async () => {
    const { id, sessionId } = await liveRun();
    assert.equal(await pauses.driving(workspaceId, sessionId), false);
    await pauses.control(workspaceId, id, true);
    assert.equal(await pauses.driving(workspaceId, sessionId), true, 'its control link may drive');
    assert.equal(await pauses.driving(randomUUID(), sessionId), false, "another workspace's session");
    await pauses.control(workspaceId, id, false);
    assert.equal(await pauses.driving(workspaceId, sessionId), false, 'handed back: the link drives nothing');
    let row = await store.get(workspaceId, id);
    assert.deepEqual([row?.status, row?.pausedFor], ['running', 'control'], 'the hand back, not yet read');
    await pauses.taken(id, 'replica-a');
    row = await store.get(workspaceId, id);
    assert.deepEqual([row?.status, row?.pausedFor], ['running', null]);

    // A person takes over after the answer and before the loop read it: reading the answer leaves the take.
    await pauses.open(id, 'replica-a', 'question', 'Which?');
    await pauses.answer(workspaceId, id, 'That one');
    await pauses.control(workspaceId, id, true);
    await pauses.taken(id, 'replica-a');
    row = await store.get(workspaceId, id);
    assert.deepEqual([row?.status, row?.pausedFor, row?.reply], ['paused', 'control', null]);
    assert.equal(await pauses.driving(workspaceId, sessionId), true);
  });

  test("the loop's verbs hold only under its claim", async () => {
    const { id } = await liveRun();
    await assert.rejects(pauses.open(id, 'replica-b', 'question', 'Which?'), ClaimLost);
    await assert.rejects(pauses.taken(id, 'replica-b'), ClaimLost);
    const row = await store.get(workspaceId, id);
    assert.deepEqual([row?.status, row?.pausedFor], ['running', null], 'nothing written');
  });
});
