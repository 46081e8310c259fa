// The session rows and the bills of lost sessions, against real Postgres and
// a real ledger served in-process: what a host killed mid-session relies on.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { MeteredHold, type MeteredState } from '@wap/billing';
import {
  freshDatabase as freshLedgerDatabase,
  type InProcessLedger,
  serveLedger,
} from '@wap/billing-ledger/test-support';
import type { SessionSnapshot } from '@wap/events';
import { ledger } from '@wap/proto';
import { type FreshDatabase, quietLog } from '@wap/testkit';
import { lostSessionSweeper, recoverLost } from '../jobs/lost-sessions.js';
import { freshDatabase } from '../test-support.js';
import { type BrowserHostDatabase, openBrowserHostDatabase } from './database.js';
import { SessionStore } from './sessions.js';

let database: FreshDatabase;
let ledgerDatabase: { url: string; drop(): Promise<void> };
let served: InProcessLedger;
let db: BrowserHostDatabase;
let store: SessionStore;

before(async () => {
  [database, ledgerDatabase] = await Promise.all([freshDatabase(), freshLedgerDatabase()]);
  served = await serveLedger(ledgerDatabase.url, () => new Date());
  db = openBrowserHostDatabase(database.url);
  store = new SessionStore(db, LIFECYCLE);
});
after(async () => {
  await db.$disconnect();
  await served.close();
  await Promise.all([database.drop(), ledgerDatabase.drop()]);
});

const HOST = 'ws://127.0.0.1:9/';
const LIFECYCLE = 'test.sessions.lifecycle';

/** The snapshots the row's changes left in the outbox, oldest first. */
const announced = async (id: string) =>
  (
    await db.$queryRawUnsafe<{ subject: string; payload: SessionSnapshot }[]>(
      `SELECT subject, payload FROM event_outbox WHERE payload->>'id' = $1 ORDER BY created_at, id`,
      id,
    )
  ).map((r) => ({ subject: r.subject, ...r.payload }));

/** A session row as a host opens it: its hold taken on the ledger, its journal written as the hold settles. */
async function open(host = HOST, options: Record<string, unknown> = {}) {
  const id = randomUUID();
  const workspaceId = `ws-sessions-${id}`;
  await served.client.ensureAccount({ workspaceId, plan: ledger.Plan.FREE, monthlyAllowanceMillicredits: 100_000n });
  const operationId = `op_${id}`;
  const hold = await MeteredHold.open(
    served.client,
    { workspaceId, operationId, capability: options.task ? 'agent' : 'connect', reference: id },
    { aheadMc: 5_000n, journal: (state) => store.journal(id, state) },
  );
  const startedAt = new Date(Date.now() - 120_000);
  await store.opened({ id, workspaceId, operationId, host, options, startedAt, metering: hold.state() });
  return { id, workspaceId, hold, startedAt };
}

/** The host was last heard from `seconds` after the session started. */
const lastSeen = (id: string, startedAt: Date, seconds: number) =>
  db.execute`UPDATE browser_sessions SET heartbeat_at = ${new Date(startedAt.getTime() + seconds * 1000)} WHERE id = ${id}::uuid`;

const spent = async (workspaceId: string) => {
  const c = await served.client.credits({ workspaceId });
  return { spent: c.allowanceSpentMillicredits, held: c.heldMillicredits };
};

test('a session row ends once: the first end is kept, and the recorder is told of each change once', async () => {
  const { id, workspaceId } = await open();
  assert.equal((await store.get(id))?.status, 'live');
  await store.ended(id, { outcome: 'closed', seconds: 65, chargedMc: 1_084n, proxyBytes: 2_048 });
  await store.ended(id, { outcome: 'lifetime', seconds: 99, chargedMc: 9n, proxyBytes: 0 });
  const row = await store.get(id);
  assert.deepEqual(
    { status: row?.status, outcome: row?.outcome, chargedMc: row?.chargedMc, proxyBytes: row?.proxyBytes },
    { status: 'ended', outcome: 'closed', chargedMc: 1_084n, proxyBytes: 2_048n },
  );
  const events = await announced(id);
  assert.deepEqual(
    events.map((e) => ({ subject: e.subject, status: e.status, outcome: e.outcome, workspaceId: e.workspaceId })),
    [
      { subject: LIFECYCLE, status: 'live', outcome: null, workspaceId },
      { subject: LIFECYCLE, status: 'ended', outcome: 'closed', workspaceId },
    ],
  );
  assert.deepEqual(events[1]?.usage, { contextSeconds: 65, proxyBytes: 2_048, chargedMc: '1084' });
});

test('a lost session is billed from its journal up to its last heartbeat, once, and only stale rows are', async () => {
  const lost = await open();
  const alive = await open();
  // The lost one settled 60 s as it ran, then its host died 65 s in.
  lost.hold.add('context_seconds', 60n);
  await lost.hold.settle();
  assert.equal((await spent(lost.workspaceId)).spent, 1_000n);
  await lastSeen(lost.id, lost.startedAt, 65);
  assert.deepEqual(await store.heartbeat([alive.id]), [], 'the live row is still live');
  const sweep = lostSessionSweeper(store, served.client, quietLog());
  assert.ok((await sweep.runOnce()) >= 1);
  const row = await store.get(lost.id);
  // 65 s at 1 credit a minute, rounded once: 1,084 mc; its hold released.
  assert.deepEqual(
    { status: row?.status, outcome: row?.outcome, chargedMc: row?.chargedMc, endedAt: row?.endedAt?.getTime() },
    { status: 'ended', outcome: 'host_lost', chargedMc: 1_084n, endedAt: lost.startedAt.getTime() + 65_000 },
  );
  assert.deepEqual(await spent(lost.workspaceId), { spent: 1_084n, held: 0n });
  const ended = (await announced(lost.id)).at(-1);
  assert.deepEqual(
    { status: ended?.status, outcome: ended?.outcome, usage: ended?.usage },
    { status: 'ended', outcome: 'host_lost', usage: { contextSeconds: 65, proxyBytes: 0, chargedMc: '1084' } },
  );
  assert.equal((await store.get(alive.id))?.status, 'live');
  // A second sweep finds nothing more to bill.
  await sweep.runOnce();
  assert.deepEqual(await spent(lost.workspaceId), { spent: 1_084n, held: 0n });
  await alive.hold.close();
});

test("a lost agent run's browser bills no browser time (the run bills its own) and replays its proxy bytes", async () => {
  const lost = await open(HOST, { task: { kind: 'agent', runId: randomUUID() } });
  // 1 MB of proxy traffic was being settled when the host died 65 s in.
  lost.hold.add('proxy_bytes', 1_000_000n);
  await lost.hold.settle();
  const before = await spent(lost.workspaceId);
  await lastSeen(lost.id, lost.startedAt, 65);
  await recoverLost(store, served.client, quietLog());
  const row = await store.get(lost.id);
  assert.deepEqual({ status: row?.status, outcome: row?.outcome }, { status: 'ended', outcome: 'host_lost' });
  assert.deepEqual(await spent(lost.workspaceId), { spent: before.spent, held: 0n }, 'no context_seconds charged');
  const calls = await served.client.listCalls({ workspaceId: lost.workspaceId, limit: 10, cursor: '' });
  assert.ok(
    calls.calls.every((c) => c.capability === 'agent'),
    calls.calls.map((c) => c.capability).join(),
  );
});

test("a host restarting under the same URL finishes its previous run's sessions at once, not after the silence", async () => {
  const host = `ws://127.0.0.1:${10_000 + Math.floor(Math.random() * 50_000)}/`;
  const mine = await open(host);
  const other = await open();
  await lastSeen(mine.id, mine.startedAt, 40);
  await db.execute`UPDATE browser_sessions SET heartbeat_at = ${new Date()} WHERE id = ${other.id}::uuid`;
  assert.equal(await recoverLost(store, served.client, quietLog(), host), 1);
  assert.deepEqual(await spent(mine.workspaceId), { spent: 667n, held: 0n }, '40 s: 666.67 mc, rounded up');
  assert.equal((await store.get(other.id))?.status, 'live', "another host's fresh row is not touched");
  await other.hold.close();
});

test('a row taken for lost is no longer journaled, and its host learns it at its next heartbeat', async () => {
  const s = await open();
  await lastSeen(s.id, s.startedAt, 30);
  await recoverLost(store, served.client, quietLog());
  assert.equal((await store.get(s.id))?.outcome, 'host_lost');
  assert.deepEqual(await store.heartbeat([s.id]), [s.id]);
  // The host, slow rather than dead, tries to settle more: the journal refuses, so nothing is sent.
  s.hold.add('context_seconds', 30n);
  await assert.rejects(s.hold.settle(), /no longer live/);
  assert.deepEqual(await spent(s.workspaceId), { spent: 500n, held: 0n });
  const journal = (await store.get(s.id))?.metering as unknown as MeteredState | undefined;
  assert.equal(journal?.pending, undefined, 'the refused settle left no charge in flight');
});
