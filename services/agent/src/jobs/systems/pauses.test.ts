// A run's pauses against real Postgres, real NATS and real Chromium: a
// question waits unmetered for its answer and the model reads it once; an
// approval's decision goes to the system that asked, or lapses; a person
// driving stops the step in flight, and a hand back is read even when the
// loop never saw the take; a cancel ends a paused run, a stopping replica
// lets it go.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import { sessionStreamNames } from '@wap/events';
import { type SystemsFixture, startTestRun, systemsFixture } from '../../test-support.js';
import { type RunContext, Stop } from './context.js';
import { MeteringSystem } from './metering.js';
import { type Decision, PauseSystem } from './pauses.js';

const workspaceId = randomUUID();
let fx: SystemsFixture;

before(async () => {
  fx = await systemsFixture();
});

afterEach(() => fx.release());

after(() => fx.close());

/** A clock the test moves. */
const clock = () => {
  let ms = 1_000_000;
  return { now: () => ms, advance: (seconds: number) => (ms += seconds * 1_000) };
};

/** A started run on browser session `sessionId`, with its pauses, metered on `time`; its browser on Chromium with `chromium`. */
async function pausingRun(options: { approvalTimeoutMs?: number; signal?: AbortSignal; chromium?: boolean } = {}) {
  const sessionId = randomUUID();
  const run = await startTestRun(fx.stores, workspaceId, {
    sessionId,
    ...(options.signal && { signal: options.signal }),
  });
  const time = clock();
  const metering = new MeteringSystem(run, fx.ledger, time.now);
  const browser = await fx.browser(run, metering, { chromium: options.chromium ?? false });
  const pauses = new PauseSystem(run, metering, browser, {
    pauses: fx.stores.pauses,
    approvalTimeoutMs: options.approvalTimeoutMs ?? 60_000,
  });
  metering.resumeClock();
  return { run, sessionId, time, metering, pauses };
}

const rowOf = (run: RunContext) => fx.stores.store.byId(run.row.id);
const noDecision = async (d: Decision) => assert.fail(`no approval was asked: ${JSON.stringify(d)}`);

/** The host of `sessionId` as the agent tells it the wheel is back; answers what it was told. */
function hostOf(sessionId: string) {
  const told: unknown[] = [];
  const sub = fx.nats.nc.subscribe(sessionStreamNames(fx.namespace).liveInput(sessionId), {
    callback: (_err, msg) => {
      told.push(msg.json());
      msg.respond(JSON.stringify({ ok: true }));
    },
  });
  return { told, close: () => sub.unsubscribe() };
}

describe('PauseSystem', () => {
  test('a question waits, unmetered, for its answer; the model reads the answer as the reply to its question', async () => {
    const { run, time, metering, pauses } = await pausingRun();
    time.advance(12);
    const results: string[] = [];
    assert.equal(await pauses.ask('Which colour do you like?', results), 'stop');
    const paused = await rowOf(run);
    assert.deepEqual(
      [paused?.status, paused?.pausedFor, paused?.question],
      ['paused', 'question', 'Which colour do you like?'],
    );
    assert.deepEqual(results, ['ask: asked "Which colour do you like?"']);
    const waiting = pauses.checkpoint(noDecision);
    time.advance(600); // ten minutes paused
    await fx.stores.pauses.answer(workspaceId, run.row.id, 'green');
    await waiting;
    assert.deepEqual(run.memory.reply, { question: 'Which colour do you like?', answer: 'green' });
    const resumed = await rowOf(run);
    assert.deepEqual([resumed?.status, resumed?.pausedFor, resumed?.reply], ['running', null, null], 'read once');
    metering.accrue();
    assert.equal(metering.spentMc(), 1_200n, 'the 12 s before the question: 1 credit of agent time, 0.2 of browser');
  });

  test('an approval: the decision goes to the system that asked it; one nobody gives lapses', async () => {
    const { run, pauses } = await pausingRun();
    run.memory.approval = { key: 'click [3]', rule: 'ask before paying', state: 'asked', askedAt: Date.now() };
    await pauses.askApproval('Approve this action? click [3]', { rule: 'ask before paying', action: 'click [3]' });
    assert.equal((await rowOf(run))?.pausedFor, 'approval');
    const decisions: Decision[] = [];
    const waiting = pauses.checkpoint(async (d) => {
      decisions.push(d);
    });
    await fx.stores.pauses.approve(workspaceId, run.row.id, true, 'sealed');
    await waiting;
    assert.deepEqual(decisions, [{ approved: true, sealedCvc: 'sealed' }]);

    const late = await pausingRun({ approvalTimeoutMs: 300 });
    late.run.memory.approval = { key: 'click [3]', rule: 'ask', state: 'asked', askedAt: Date.now() };
    await late.pauses.askApproval('Approve this action? click [3]', {});
    await assert.rejects(late.pauses.checkpoint(noDecision), Stop);
    const ended = await rowOf(late.run);
    assert.deepEqual([ended?.status, ended?.outcome, ended?.reasonCode], ['settled', 'failed', 'approval_timed_out']);
  });

  test('a person takes the wheel: the step in flight stops, the run waits, and goes on once handed back', async () => {
    const { run, sessionId, pauses } = await pausingRun({ chromium: true });
    const host = hostOf(sessionId);
    await fx.stores.pauses.control(workspaceId, run.row.id, true);
    await run.renew(); // the loop's look while its model thinks
    assert.equal(run.stepAbort.signal.aborted, true, 'the model call in flight is stopped');
    const waiting = pauses.checkpoint(noDecision);
    await fx.stores.pauses.control(workspaceId, run.row.id, false);
    await waiting;
    host.close();
    assert.deepEqual(host.told, [{ release: true }], "the host's guard ends at once");
    assert.equal(run.stepAbort.signal.aborted, false, 'the next step may run');
    assert.deepEqual(run.memory.results, ['A person drove the browser meanwhile: look at the page afresh.']);
  });

  test('a take and a hand back between two looks are still read as a hand back', async () => {
    const { run, sessionId, pauses } = await pausingRun();
    const host = hostOf(sessionId);
    await fx.stores.pauses.control(workspaceId, run.row.id, true);
    await fx.stores.pauses.control(workspaceId, run.row.id, false);
    await pauses.checkpoint(noDecision);
    host.close();
    assert.deepEqual(host.told, [{ release: true }]);
    assert.deepEqual(run.memory.results, ['A person drove the browser meanwhile: look at the page afresh.']);
    assert.equal((await rowOf(run))?.pausedFor, null);
  });

  test('a cancel ends a paused run; a replica that stops lets its paused run go', async () => {
    const { run, pauses } = await pausingRun();
    await pauses.ask('Go on?', []);
    const waiting = pauses.checkpoint(noDecision);
    await fx.stores.store.cancel(workspaceId, run.row.id);
    await assert.rejects(waiting, Stop);
    const cancelled = await rowOf(run);
    assert.deepEqual([cancelled?.status, cancelled?.outcome], ['settled', 'cancelled']);

    const stopping = new AbortController();
    const other = await pausingRun({ signal: stopping.signal });
    await other.pauses.ask('Go on?', []);
    const left = other.pauses.checkpoint(noDecision);
    stopping.abort();
    await assert.rejects(left, Stop);
    assert.equal((await rowOf(other.run))?.status, 'paused', 'not ended: another replica takes it on');
  });
});
