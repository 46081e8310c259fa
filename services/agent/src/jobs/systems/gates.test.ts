// The workspace's gates on a run's actions, against real Postgres, real
// Chromium on loopback pages and rules compiled from sentences as PUT
// /v1/rules compiles them: a refusal named and told, what the run has spent
// checked, a click that submits a form held for a person's approval and let
// through once, a denial told to the model.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import { serveTestPages, type TestServer } from '../../browser/test-support.js';
import { compileRules } from '../../domain/rules/compile.js';
import { elementIndex, type SystemsFixture, startTestRun, systemsFixture } from '../../test-support.js';
import { GateSystem } from './gates.js';
import { MeteringSystem } from './metering.js';
import { PauseSystem } from './pauses.js';

let fx: SystemsFixture;
let pages: { site: TestServer; other: TestServer };

before(async () => {
  fx = await systemsFixture();
  pages = await serveTestPages();
});

afterEach(() => fx.release());

after(async () => {
  await pages.site.close();
  await pages.other.close();
  await fx.close();
});

/** A started run of a workspace whose rules are `sentences`, with its gates; its browser on Chromium with `chromium`. */
async function gatedRun(sentences: string[], chromium = false) {
  const workspaceId = randomUUID();
  await fx.stores.rules.set(workspaceId, compileRules(sentences));
  const run = await startTestRun(fx.stores, workspaceId, { sessionId: randomUUID() });
  const metering = new MeteringSystem(run, fx.ledger);
  const browser = await fx.browser(run, metering, { chromium });
  const pauses = new PauseSystem(run, metering, browser, { pauses: fx.stores.pauses, approvalTimeoutMs: 60_000 });
  return { workspaceId, run, metering, browser, pauses, gates: new GateSystem(run, metering, browser, pauses) };
}

/** A run on the sign-in page of a workspace that checks every form submitted, and the click that submits it. */
async function onSignIn() {
  const gated = await gatedRun(['Check with me before submitting any form'], true);
  await gated.browser.startPage(`${pages.site.origin}/form`);
  const page = await gated.browser.observe(false);
  const submit = { action: 'click', index: elementIndex(page.elements, 'Sign in</button>') } as const;
  return { ...gated, page, submit };
}

describe('GateSystem', () => {
  test('a rule refuses what it forbids, naming itself, and lets the rest through', async () => {
    const { run, gates } = await gatedRun(['Never visit facebook.com']);
    const results: string[] = [];
    const page = 'https://example.com/';
    assert.equal(await gates.check({ action: 'navigate', url: 'https://m.facebook.com/' }, page, results), 'failed');
    assert.match(results[0] ?? '', /blocked by the workspace rule "Never visit facebook.com"/);
    assert.equal(await gates.check({ action: 'navigate', url: 'https://example.org/' }, page, results), undefined);
    assert.equal(await gates.check({ action: 'record', json: '{}' }, page, results), undefined, "the run's own");
    const events = await fx.stores.store.events(run.row.id, ['step'], 0n, 10);
    assert.deepEqual(
      events.map((e) => [e.kind, (e.data as { rule: string }).rule]),
      [['blocked', 'Never visit facebook.com']],
    );
  });

  test('a cap on credits refuses every action once the run has spent them', async () => {
    const { metering, gates } = await gatedRun(["Don't use more than 2 credits"]);
    const scroll = { action: 'scroll', direction: 'down' } as const;
    assert.equal(await gates.check(scroll, 'https://example.com/', []), undefined);
    metering.add('page_load', 3n);
    assert.equal(await gates.check(scroll, 'https://example.com/', []), 'failed');
  });

  test("a click that submits a form waits for a person's approval, then runs once", async () => {
    const { workspaceId, run, pauses, gates, page, submit } = await onSignIn();
    const field = { action: 'click', index: elementIndex(page.elements, 'type=email') } as const;
    assert.equal(await gates.check(field, page.url, []), undefined, 'a click into a field submits nothing');

    const results: string[] = [];
    assert.equal(await gates.check(submit, page.url, results), 'stop');
    assert.match(results[0] ?? '', /waits for a person's approval \(rule "Check with me before submitting any form"\)/);
    const paused = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([paused?.status, paused?.pausedFor], ['paused', 'approval']);
    assert.match(
      paused?.question ?? '',
      /^Approve this action\? click \d+ on 127\.0\.0\.1: submit needs a person.s approval$/,
    );

    const waiting = pauses.checkpoint(async (d) => gates.decided(d));
    await fx.stores.pauses.approve(workspaceId, run.row.id, true);
    await waiting;
    assert.deepEqual(run.memory.results, [`click ${submit.index}: approved; do it now`]);
    assert.equal(await gates.check(submit, page.url, []), undefined, 'approved: it runs');
    assert.equal(await gates.check(submit, page.url, []), 'stop', 'once: the next submit asks again');
  });

  test('a denied action is told to the model as not to be done', async () => {
    const { workspaceId, run, pauses, gates, page, submit } = await onSignIn();
    assert.equal(await gates.check(submit, page.url, []), 'stop');
    const waiting = pauses.checkpoint(async (d) => gates.decided(d));
    await fx.stores.pauses.approve(workspaceId, run.row.id, false);
    await waiting;
    assert.deepEqual(run.memory.results, [`click ${submit.index}: denied by a person; do not do it`]);
    assert.equal(run.memory.approval, undefined);
    assert.equal(await gates.check(submit, page.url, []), 'stop', 'asked again, not let through');
  });
});
