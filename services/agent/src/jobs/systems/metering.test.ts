// What a run costs, against a real ledger served in-process and real Postgres:
// agent and browser time billed while the run runs and not while it waits,
// pages, the spend cap checked before a step, the bill of a claim that died
// finished once by the next, and a workspace without credit.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { MeterName } from '@wap/billing';
import {
  freshDatabase as freshLedgerDatabase,
  type InProcessLedger,
  serveLedger,
} from '@wap/billing-ledger/test-support';
import { ledger as proto } from '@wap/proto';
import type { FreshDatabase } from '@wap/testkit';
import { contextFor, type SystemsFixture, startTestRun, systemsFixture } from '../../test-support.js';
import { Stop } from './context.js';
import { MeteringSystem } from './metering.js';

let fx: SystemsFixture;
let ledgerDatabase: FreshDatabase;
let ledger: InProcessLedger;

before(async () => {
  [fx, ledgerDatabase] = await Promise.all([systemsFixture(), freshLedgerDatabase()]);
  ledger = await serveLedger(ledgerDatabase.url, () => new Date());
});

after(async () => {
  await fx.close();
  await ledger.close();
  await ledgerDatabase.drop();
});

/** A workspace on the pro plan: its allowance covers what the tests spend. */
async function paying(): Promise<string> {
  const workspaceId = randomUUID();
  await ledger.client.ensureAccount({ workspaceId, plan: proto.Plan.PRO });
  return workspaceId;
}

/** A clock the test moves. */
const clock = () => {
  let ms = 1_000_000;
  return { now: () => ms, advance: (seconds: number) => (ms += seconds * 1_000) };
};

/** What the ledger charged the workspace, meter by meter, and in millicredits. */
async function charged(workspaceId: string) {
  const usage = await ledger.client.usage({ workspaceId });
  const meters: Partial<Record<MeterName, string>> = {};
  for (const m of usage.total?.meters ?? [])
    meters[proto.Meter[m.meter].toLowerCase() as MeterName] = String(m.quantity);
  return { meters, millicredits: usage.total?.millicredits ?? 0n };
}

describe('MeteringSystem', () => {
  test('bills agent and browser time while the run runs, not while it waits, and a page per document', async () => {
    const workspaceId = await paying();
    const run = await startTestRun(fx.stores, workspaceId, { run: { maxCredits: 100 } });
    const time = clock();
    const metering = new MeteringSystem(run, ledger.client, time.now);
    await metering.open();
    metering.resumeClock();
    time.advance(30);
    metering.add('page_load', 1n);
    metering.pauseClock();
    time.advance(600); // ten minutes waiting for an answer
    metering.resumeClock();
    time.advance(15.5);
    await assert.rejects(run.end('completed', null, 'done'), Stop);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual(
      row?.billed,
      { agent_seconds: '46', context_seconds: '46', page_load: '1' },
      '30 s, then 15.5 s up',
    );
    assert.equal((await ledger.client.credits({ workspaceId })).heldMillicredits, 0n, 'the hold is released');
    const bill = await charged(workspaceId);
    assert.deepEqual(bill.meters, row?.billed, 'the ledger charged what the row says');
    assert.equal(bill.millicredits, row?.chargedMc);
  });

  test('another step that would pass the spend cap is refused before it runs', async () => {
    const workspaceId = await paying();
    const tight = new MeteringSystem(
      await startTestRun(fx.stores, workspaceId, { run: { maxCredits: 3 } }),
      ledger.client,
    );
    assert.equal(tight.overCap(), true, 'a first step is reckoned a page and half a minute: 4 credits');
    const run = await startTestRun(fx.stores, workspaceId, { run: { maxCredits: 10 } });
    const metering = new MeteringSystem(run, ledger.client);
    assert.equal(metering.overCap(), false);
    metering.add('page_load', 6n);
    run.steps = 1;
    assert.equal(metering.spentMc(), 6_000n);
    assert.equal(metering.overCap(), true, '6 credits spent, 6 more for the next step: past 10');
  });

  test('a claim that died mid-run is billed exactly once by the next, from its journal', async () => {
    const workspaceId = await paying();
    const first = await startTestRun(fx.stores, workspaceId, { leaseMs: 200 });
    const time = clock();
    const dying = new MeteringSystem(first, ledger.client, time.now);
    await dying.open();
    dying.resumeClock();
    dying.add('page_load', 2n);
    time.advance(60);
    dying.accrue();
    await dying.settle();
    dying.add('page_load', 1n); // accrued after the last settle: lost with the replica, as a crash loses it
    await new Promise((r) => setTimeout(r, 250)); // the lease, not a pace: it must have lapsed

    const [row] = await fx.stores.store
      .claim('replica-b', 100, 60_000)
      .then((rows) => rows.filter((r) => r.id === first.row.id));
    assert.ok(row?.metering, 'the journal of the first claim');
    const second = await contextFor(fx.stores, row, 'replica-b');
    const next = new MeteringSystem(second, ledger.client, time.now);
    await next.recover();
    assert.deepEqual((await fx.stores.store.byId(row.id))?.billed, {
      agent_seconds: '60',
      context_seconds: '60',
      page_load: '2',
    });
    await next.open();
    next.add('page_load', 1n);
    await assert.rejects(second.end('completed', null), Stop);
    const billed = (await fx.stores.store.byId(row.id))?.billed;
    assert.deepEqual(billed, { agent_seconds: '60', context_seconds: '60', page_load: '3' });
    assert.deepEqual((await charged(workspaceId)).meters, billed, 'nothing billed twice');
  });

  test('a workspace without credit: the run ends before it starts, with quota_exceeded', async () => {
    const workspaceId = randomUUID();
    await ledger.client.ensureAccount({ workspaceId, plan: proto.Plan.FREE, monthlyAllowanceMillicredits: 0n });
    const run = await startTestRun(fx.stores, workspaceId);
    const metering = new MeteringSystem(run, ledger.client);
    await assert.rejects(metering.open(), Stop);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.status, row?.outcome, row?.reasonCode], ['settled', 'failed', 'quota_exceeded']);
  });
});
