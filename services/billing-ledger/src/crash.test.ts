// Crash test (docs/billing.md, Invariants): the ledger runs as its own
// process; a burst of settles and charges is in flight when it is killed with
// SIGKILL; after a restart the client replays every request it sent, with the
// same keys, and every charge must have been applied exactly once: once if it
// committed before the kill, once if only the replay got through, never twice.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { priceUsage } from '@wap/billing';
import { isApiError } from '@wap/errors';
import { ledger } from '@wap/proto';
import { createClient } from '@wap/rpc';
import {
  freePort,
  freshDatabase,
  type LedgerClient,
  type LedgerProcess,
  spawnLedger,
  TEST_SERVICE_TOKEN,
  type TestDatabase,
  waitServing,
} from './test-support.js';
import { meterName } from './views/convert.js';

const SENDERS = 8;
const HOLDS = 16;

let database: TestDatabase;
let running: LedgerProcess | undefined;

before(async () => {
  database = await freshDatabase();
});
after(async () => {
  running?.proc.kill('SIGKILL');
  await running?.exited;
  await database?.drop();
});

type Sent =
  | { op: 'settle'; request: { holdId: string; idempotencyKey: string; meters: ledger.MeterQuantity[] } }
  | {
      op: 'charge';
      request: { workspaceId: string; idempotencyKey: string; capability: string; meters: ledger.MeterQuantity[] };
    };

const call = (client: LedgerClient, sent: Sent) =>
  sent.op === 'settle' ? client.settle(sent.request) : client.charge(sent.request);

const priceOf = (meters: ledger.MeterQuantity[]) =>
  priceUsage(meters.map((m) => ({ meter: meterName(m.meter)!, quantity: m.quantity }))).millicredits;

test('SIGKILL mid-burst, restart, replay: every charge applied exactly once', { timeout: 90_000 }, async () => {
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  running = spawnLedger(database.url, port);
  await waitServing(address);
  const setup = createClient(ledger.LedgerService, address, { token: TEST_SERVICE_TOKEN });
  const workspaceId = 'crash-ws';
  await setup.ensureAccount({ workspaceId, plan: ledger.Plan.PRO });
  const holds: string[] = [];
  for (let i = 0; i < HOLDS; i++) {
    const hold = await setup.authorize({
      workspaceId,
      idempotencyKey: `hold-${i}`,
      capability: 'crawl',
      millicredits: 2_000_000n,
      ttlSeconds: 3_600,
    });
    holds.push(hold.holdId);
  }
  setup.close();

  // The burst: each sender records a request before sending it, then sends until the process dies.
  const sent: Sent[] = [];
  const firstAnswers = new Map<string, unknown>();
  let answered = 0;
  let killed = false;
  const senders = Array.from({ length: SENDERS }, async (_, s) => {
    // Only the kill may fail a call: a deadline a busy machine could pass would fail one too.
    const client = createClient(ledger.LedgerService, address, { defaultTimeoutMs: 30_000, token: TEST_SERVICE_TOKEN });
    for (let i = 0; !killed; i++) {
      const meters = [
        { meter: ledger.Meter.PAGE_LOAD, quantity: BigInt(1 + ((s + i) % 3)) },
        ...(i % 4 === 0 ? [{ meter: ledger.Meter.CONTEXT_SECONDS, quantity: BigInt(10 + i) }] : []),
      ] as ledger.MeterQuantity[];
      const item: Sent =
        i % 5 === 4
          ? { op: 'charge', request: { workspaceId, idempotencyKey: `c-${s}-${i}`, capability: 'scrape', meters } }
          : { op: 'settle', request: { holdId: holds[(s * 7 + i) % HOLDS]!, idempotencyKey: `s-${s}-${i}`, meters } };
      sent.push(item);
      try {
        firstAnswers.set(item.request.idempotencyKey, await call(client, item));
        answered++;
      } catch (err) {
        assert.ok(isApiError(err), String(err));
        assert.ok(killed, `only the kill may fail a call, got ${err.code}`);
      }
    }
    client.close();
  });
  while (answered < 400) await new Promise((r) => setTimeout(r, 5));
  killed = true;
  running.proc.kill('SIGKILL');
  assert.equal(await running.exited, null, 'killed, not exited');
  await Promise.all(senders);
  const lost = sent.length - firstAnswers.size;
  assert.ok(lost > 0, 'some calls were in flight when the process died');

  const { Client } = await import('pg');
  const pg = new Client({ connectionString: database.url });
  await pg.connect();
  const committed = new Set(
    (await pg.query('SELECT "idempotency_key" AS key FROM "usage_records"')).rows.map((r) => r.key as string),
  );
  const committedUnanswered = sent.filter(
    (item) => !firstAnswers.has(item.request.idempotencyKey) && committed.has(item.request.idempotencyKey),
  ).length;

  running = spawnLedger(database.url, port);
  await waitServing(address);
  const client = createClient(ledger.LedgerService, address, { defaultTimeoutMs: 10_000, token: TEST_SERVICE_TOKEN });
  for (const item of sent) {
    const answer = await call(client, item);
    const first = firstAnswers.get(item.request.idempotencyKey);
    if (first) assert.deepEqual(answer, first, 'a replay answers what the first call answered');
    assert.equal(answer.usage?.millicredits, priceOf(item.request.meters), 'the balance covers every charge');
  }

  // Exactly once: the stored sums equal the sum over distinct requests.
  const expectedByHold = new Map<string, bigint>(holds.map((h) => [h, 0n]));
  let expectedTotal = 0n;
  for (const item of sent) {
    const price = priceOf(item.request.meters);
    expectedTotal += price;
    if (item.op === 'settle') expectedByHold.set(item.request.holdId, expectedByHold.get(item.request.holdId)! + price);
  }
  const credits = await client.credits({ workspaceId });
  assert.equal(credits.allowanceSpentMillicredits, expectedTotal, 'spent = sum of distinct requests');
  const usage = await client.usage({ workspaceId });
  assert.equal(usage.total?.millicredits, expectedTotal, 'usage = sum of distinct requests');
  try {
    const rows = await pg.query('SELECT "id", "settled_mc" FROM "holds" WHERE "workspace_id" = $1', [workspaceId]);
    for (const row of rows.rows) assert.equal(BigInt(row.settled_mc), expectedByHold.get(row.id), `hold ${row.id}`);
    const records = await pg.query('SELECT count(*)::int AS n FROM "usage_records"');
    assert.equal(records.rows[0].n, sent.length, 'one usage row per distinct request');
    const entries = await pg.query(
      `SELECT coalesce(sum("amount_mc"), 0)::text AS sum FROM "entries" WHERE "kind" = 'spend'`,
    );
    assert.equal(BigInt(entries.rows[0].sum), expectedTotal, 'entries = sum of distinct requests');
  } finally {
    await pg.end();
  }
  client.close();

  running.proc.kill('SIGTERM');
  assert.equal(await running.exited, 0, 'SIGTERM drains and exits 0');
  running = undefined;
  console.log(
    `crash: ${sent.length} requests, ${firstAnswers.size} answered before the kill, ${lost} in flight ` +
      `(${committedUnanswered} of them had committed unanswered), all replayed`,
  );
});
