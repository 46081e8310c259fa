// Model-based test of the ledger (docs/billing.md, Invariants): thousands of
// random Authorize / Settle / Void / Charge / Grant calls, retries with the
// same key (and with a changed request), hold expiry and lapses as the clock
// jumps, from several concurrent clients through the real gRPC server against
// real Postgres. Each client owns an account whose every answer the model
// predicts exactly, and all clients share one account checked for
// order-independent invariants. The expiry sweep runs alongside. Replay a
// failure with MODEL_SEED=<seed>.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ledger } from '@wap/proto';
import { freshDatabase, type InProcessLedger, serveLedger, TestClock, type TestDatabase } from '../test-support.js';
import { checkUsage } from './checks.js';
import { ModelAccount } from './ledger-model.js';
import { Rng } from './random.js';
import { SharedDriver } from './shared.js';
import { SoloDriver } from './solo.js';

const SEED = Number(process.env.MODEL_SEED ?? Date.now() % 1_000_000);
const CLIENTS = 5;
const SERVERS = 2;
const BATCHES = 75;
const STEPS_PER_CLIENT = 10; // per batch: CLIENTS × STEPS × BATCHES = 3750 calls, plus retries

let database: TestDatabase;
let servers: InProcessLedger[] = [];
const clock = new TestClock();

before(async () => {
  database = await freshDatabase();
  // Two servers on one database, as replicas would be: the first with the service's
  // batching, the second with small batches gathered over a longer window, so the
  // calls its four clients make go out together and batches are often full.
  servers = await Promise.all(
    Array.from({ length: SERVERS }, (_, i) =>
      serveLedger(database.url, clock.now, i === 0 ? undefined : { maxInFlight: 1, maxBatch: 8, gatherMs: 5 }),
    ),
  );
});
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await database?.drop();
});

const server = (client: number) => servers[client === 0 ? 0 : 1]!;

/** The clock between batches: mostly seconds (holds expire), sometimes days (grants lapse, months turn). */
function jump(rng: Rng): number {
  const kind = rng.weighted({ none: 20, seconds: 45, minutes: 30, days: 5 });
  if (kind === 'seconds') return rng.int(1, 90);
  if (kind === 'minutes') return rng.int(90, 1_800);
  if (kind === 'days') return rng.int(1, 12) * 86_400;
  return 0;
}

test(`random operations agree with the model (seed ${SEED})`, { timeout: 120_000 }, async () => {
  const started = clock.now();
  const rng = new Rng(SEED);
  const shared = new SharedDriver('model-shared', clock);
  await servers[0]!.client.ensureAccount({ workspaceId: shared.workspaceId, plan: ledger.Plan.FREE });
  const solos: SoloDriver[] = [];
  for (let c = 0; c < CLIENTS; c++) {
    const workspaceId = `model-solo-${c}`;
    await server(c).client.ensureAccount({ workspaceId, plan: ledger.Plan.FREE });
    const model = new ModelAccount(1_000_000n, clock.now());
    solos.push(new SoloDriver(server(c).client, workspaceId, model, new Rng(SEED * 31 + c), clock));
  }
  const clientRngs = solos.map((_, c) => new Rng(SEED * 17 + c));
  let sweptHolds = 0;
  let sharedSteps = 0;
  for (let batch = 0; batch < BATCHES; batch++) {
    const sweep = servers[0]!.deps.money.sweep(clock.now(), 20).then((n) => {
      sweptHolds += n;
    });
    await Promise.all(
      solos.map(async (solo, c) => {
        const mine = clientRngs[c]!;
        for (let i = 0; i < STEPS_PER_CLIENT; i++) {
          if (mine.chance(0.3)) {
            sharedSteps++;
            await shared.step(server(c).client, c, mine);
          } else {
            await solo.step();
          }
        }
      }),
    );
    await sweep;
    for (const solo of solos) await solo.verify(servers[0]!.db.pool);
    await shared.verify(servers[0]!.client, servers[0]!.db.pool);
    clock.advance(jump(rng));
  }
  for (const solo of solos) await checkUsage(servers[0]!.client, solo.workspaceId, solo.answered, started, clock.now());
  await checkUsage(servers[0]!.client, shared.workspaceId, shared.answered, started, clock.now());

  const soloSteps = solos.reduce((sum, s) => sum + s.steps, 0);
  const seen = Object.fromEntries(
    Object.keys(solos[0]!.seen).map((k) => [
      k,
      solos.reduce((sum, s) => sum + s.seen[k as keyof SoloDriver['seen']], 0),
    ]),
  );
  assert.ok(soloSteps + sharedSteps >= 3_000, 'thousands of operations');
  assert.ok(shared.duplicates > 0, 'concurrent duplicates were sent');
  const batched = servers.reduce((sum, s) => sum + s.deps.money.batcher.batched, 0);
  assert.ok(batched > 0, 'calls went out in batches');
  for (const [path, count] of Object.entries(seen)) assert.ok(count > 0, `the test took the ${path} path`);
  console.log(
    `model: seed ${SEED}, ${soloSteps} exact steps, ${sharedSteps} shared steps (${shared.duplicates} sent twice at once), ` +
      `${batched} calls in batches, ${sweptHolds} holds swept, ${JSON.stringify(seen)}, clock moved ${Math.round((clock.now().getTime() - started.getTime()) / 86_400_000)} days`,
  );
});
