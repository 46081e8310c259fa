// What a run's systems share, against real Postgres: events that never carry
// a secret value, the look at the row that stops a step a person or a cancel
// wants stopped, and the ending with the systems' last words around it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ClaimLost } from '../../store/fenced.js';
import { claimFor, type SystemsFixture, startTestRun, systemsFixture } from '../../test-support.js';
import { Stop } from './context.js';

let fx: SystemsFixture;
const workspaceId = randomUUID();
const PASSWORD = 'correct-horse-battery';

before(async () => {
  fx = await systemsFixture();
  const login = await fx.stores.secrets.create(workspaceId, {
    handle: 'shop',
    domains: ['shop.example'],
    value: { kind: 'login', username: 'ada', password: PASSWORD },
  });
  assert.ok(login);
});

after(() => fx.close());

/** A started run granted the login `shop`. */
async function runWithSecret() {
  const [secret] = await fx.db.secret.findMany({ where: { workspaceId, handle: 'shop' } });
  return startTestRun(fx.stores, workspaceId, {
    grants: { secrets: [{ handle: 'shop', id: secret?.id ?? '' }], integrations: [], purchases: undefined },
    sessionId: randomUUID(),
  });
}

const eventsOf = (runId: string) => fx.stores.store.events(runId, ['summary', 'step', 'debug'], 0n, 100);

describe('RunContext', () => {
  test('events carry no secret value; what would show one is withheld and the model told', async () => {
    const run = await runWithSecret();
    await run.event('step', 'finding', `the page says ${PASSWORD}`, { excerpt: `password: ${PASSWORD}` });
    const results: string[] = [];
    assert.equal(await run.reveals(`{"note":"${PASSWORD}"}`, 'record', results), true);
    assert.equal(await run.reveals('{"note":"nothing secret"}', 'record', results), false);
    const events = await eventsOf(run.row.id);
    assert.doesNotMatch(JSON.stringify(events.map((e) => [e.message, e.data])), new RegExp(PASSWORD));
    const finding = events.find((e) => e.kind === 'finding');
    assert.equal(finding?.message, 'the page says [secret shop]');
    assert.deepEqual(finding?.data, { excerpt: 'password: [secret shop]' });
    assert.deepEqual(events.at(-1)?.data, { code: 'secret_in_answer', handle: 'shop' });
    assert.deepEqual(results, ['record: refused, it would show the value of the secret shop; leave secret values out']);
    assert.match(run.memory.nudge ?? '', /Never put a secret's value \(shop\) into a record/);
  });

  test('a look at the row stops the step in flight when a person takes over or a cancel comes', async () => {
    const run = await runWithSecret();
    await run.renew();
    assert.equal(run.stepAbort.signal.aborted, false, 'a running run goes on');
    await fx.stores.pauses.control(workspaceId, run.row.id, true);
    assert.equal(run.stepAbort.signal.aborted, false, 'not before the next look');
    assert.equal((await run.renew()).pausedFor, 'control');
    assert.equal(run.stepAbort.signal.aborted, true);

    const other = await runWithSecret();
    await fx.stores.store.cancel(workspaceId, other.row.id);
    assert.equal((await other.renew()).cancelRequested, true);
    assert.equal(other.stepAbort.signal.aborted, true);
  });

  test('a claim taken by another replica stops every write of the first', async () => {
    const run = await startTestRun(fx.stores, workspaceId, { leaseMs: 200 });
    await new Promise((r) => setTimeout(r, 250)); // the lease, not a pace: it must have lapsed
    assert.ok(await claimFor(fx.stores.store, 'replica-b', run.row.id));
    await assert.rejects(run.renew(), ClaimLost);
    await assert.rejects(run.event('step', 'step', 'late'), ClaimLost);
    await assert.rejects(run.saveProgress(), ClaimLost);
  });

  test("the ending: the systems' last words before the row settles and after it; the files go", async () => {
    const run = await startTestRun(fx.stores, workspaceId);
    await fx.stores.store.addFile(workspaceId, run.row.id, {
      handle: `file_${randomUUID()}`,
      name: 'cv.txt',
      mimeType: 'text/plain',
      size: 1,
      sealed: new Uint8Array([1]),
    });
    const seen: string[] = [];
    run.onEnd('before', async () => {
      seen.push(`before: ${(await fx.stores.store.byId(run.row.id))?.status}`);
      await run.event('debug', 'timing', 'the last step');
    });
    run.onEnd('after', async () => {
      seen.push(`after: ${(await fx.stores.store.byId(run.row.id))?.status}`);
    });
    run.steps = 3;
    await assert.rejects(run.end('failed', { code: 'max_steps', message: 'The step cap (3) was reached.' }), Stop);
    assert.deepEqual(seen, ['before: queued', 'after: settled']);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.status, row?.outcome, row?.reasonCode, row?.steps], ['settled', 'failed', 'max_steps', 3]);
    assert.equal(run.latest.status, 'settled');
    assert.deepEqual(await fx.stores.store.files(run.row.id), []);
    assert.deepEqual(
      (await eventsOf(run.row.id)).slice(-3).map((e) => e.kind),
      ['file', 'timing', 'status'],
      'the last words, then the settlement',
    );
  });
});
