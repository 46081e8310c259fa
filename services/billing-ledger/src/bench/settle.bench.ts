// Authorize+Settle pairs per second under concurrent load, and the same for a
// crawl that settles a hold page by page. The ledger runs as its own process
// (as in the fleet) on a fresh database; this process drives it with
// BENCH_CLIENTS concurrent clients for BENCH_SECONDS per scenario.
//   node services/billing-ledger/dist/bench/settle.bench.js   (or make bench)
// Prints a table, then one JSON line (the last line) for tools.
import { randomBytes } from 'node:crypto';
import { ledger } from '@wap/proto';
import { createClient } from '@wap/rpc';
import { goal, printGoals } from '@wap/testkit';
import { freePort, freshDatabase, type LedgerClient, spawnLedger, waitServing } from '../test-support.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = 2;
// Enough to keep the ledger busy; more only queue (and lengthen p99) on two cores.
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const PAGE_MC = 1_000n;

interface Scenario {
  name: string;
  /** How many workspaces the clients spread over (1: every call contends for one account lock). */
  workspaces: number;
  /** Settles per hold: 1 is the Authorize+Settle pair; more is a crawl settling page by page. */
  settlesPerHold: number;
}

const SCENARIOS: Scenario[] = [
  { name: `pairs, ${CLIENTS} clients, 1 workspace`, workspaces: 1, settlesPerHold: 1 },
  { name: `pairs, ${CLIENTS} clients, ${CLIENTS} workspaces`, workspaces: CLIENTS, settlesPerHold: 1 },
  {
    name: `crawl (10 settles/hold), ${CLIENTS} clients, ${CLIENTS} workspaces`,
    workspaces: CLIENTS,
    settlesPerHold: 10,
  },
];

interface Result {
  scenario: string;
  clients: number;
  workspaces: number;
  seconds: number;
  /** Holds authorized and fully settled per second: Authorize+Settle pairs when settlesPerHold is 1. */
  pairs_per_s: number;
  settles_per_s: number;
  settles_per_hold: number;
  errors: number;
  authorize_ms: { p50: number; p99: number };
  settle_ms: { p50: number; p99: number };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? Number(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!.toFixed(2)) : 0;

async function run(address: string, scenario: Scenario): Promise<Result> {
  const tag = randomBytes(3).toString('hex');
  const clients: LedgerClient[] = Array.from({ length: CLIENTS }, () => createClient(ledger.LedgerService, address));
  const workspaces = Array.from({ length: scenario.workspaces }, (_, i) => `bench-${tag}-${i}`);
  for (const workspaceId of workspaces) {
    await clients[0]!.ensureAccount({ workspaceId, plan: ledger.Plan.SCALE });
    await clients[0]!.grant({
      workspaceId,
      idempotencyKey: 'bench-credits',
      kind: ledger.GrantKind.PURCHASED,
      millicredits: 10_000_000_000n,
    });
  }
  const authorizeMs: number[] = [];
  const settleMs: number[] = [];
  let holds = 0;
  let settles = 0;
  let errors = 0;
  const start = performance.now();
  const measureFrom = start + WARMUP_SECONDS * 1000;
  const end = measureFrom + SECONDS * 1000;
  const measured = (t: number) => t >= measureFrom && t <= end;
  await Promise.all(
    clients.map(async (client, c) => {
      const workspaceId = workspaces[c % workspaces.length]!;
      for (let i = 0; performance.now() < end; i++) {
        const key = `${tag}-${c}-${i}`;
        try {
          const t0 = performance.now();
          const hold = await client.authorize({
            workspaceId,
            idempotencyKey: `a-${key}`,
            capability: 'scrape',
            millicredits: PAGE_MC * BigInt(scenario.settlesPerHold),
            reference: key,
          });
          if (measured(t0)) authorizeMs.push(performance.now() - t0);
          for (let page = 0; page < scenario.settlesPerHold; page++) {
            const t1 = performance.now();
            await client.settle({
              holdId: hold.holdId,
              idempotencyKey: `s-${key}-${page}`,
              meters: [{ meter: ledger.Meter.PAGE_LOAD, quantity: 1n }],
            });
            const t2 = performance.now();
            if (measured(t1) && t2 <= end) {
              settleMs.push(t2 - t1);
              settles++;
            }
          }
          if (measured(t0) && performance.now() <= end) holds++;
        } catch (err) {
          errors++;
          if (errors <= 3) console.error(`bench: ${(err as Error).message}`);
        }
      }
    }),
  );
  for (const client of clients) client.close();
  authorizeMs.sort((a, b) => a - b);
  settleMs.sort((a, b) => a - b);
  return {
    scenario: scenario.name,
    clients: CLIENTS,
    workspaces: scenario.workspaces,
    seconds: SECONDS,
    pairs_per_s: Math.round(holds / SECONDS),
    settles_per_s: Math.round(settles / SECONDS),
    settles_per_hold: scenario.settlesPerHold,
    errors,
    authorize_ms: { p50: percentile(authorizeMs, 0.5), p99: percentile(authorizeMs, 0.99) },
    settle_ms: { p50: percentile(settleMs, 0.5), p99: percentile(settleMs, 0.99) },
  };
}

function table(results: Result[]): string {
  const header = ['scenario', 'pairs (holds)/s', 'settles/s', 'authorize p50/p99 ms', 'settle p50/p99 ms', 'errors'];
  const rows = results.map((r) => [
    r.scenario,
    String(r.pairs_per_s),
    String(r.settles_per_s),
    `${r.authorize_ms.p50} / ${r.authorize_ms.p99}`,
    `${r.settle_ms.p50} / ${r.settle_ms.p99}`,
    String(r.errors),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const database = await freshDatabase();
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  // The level the fleet runs at: every call is logged, as in production.
  const logLevel = process.env.LOG_LEVEL ?? 'info';
  const service = spawnLedger(database.url, port, { LOG_LEVEL: logLevel });
  try {
    await waitServing(address);
    const results: Result[] = [];
    for (const scenario of SCENARIOS) results.push(await run(address, scenario));
    console.log(
      `billing-ledger: Authorize then Settle (a pair), or Authorize then 10 Settles (a crawl), ` +
        `${SECONDS} s per scenario after ${WARMUP_SECONDS} s warm-up, ledger LOG_LEVEL=${logLevel}`,
    );
    console.log(table(results));
    // The goal is the ledger's under load from many workspaces: the one-workspace scenario measures one lock.
    const spread = results[1] as Result;
    const goals = [
      goal('ledger Authorize+Settle pairs/s', spread.pairs_per_s, '>=', 1500, 'pairs/s'),
      goal('ledger Authorize or Settle p99', Math.max(spread.authorize_ms.p99, spread.settle_ms.p99), '<=', 20, 'ms'),
    ];
    printGoals(goals);
    console.log(JSON.stringify({ bench: 'billing-ledger.settle', results, goals }));
  } finally {
    service.proc.kill('SIGTERM');
    await service.exited;
    await database.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
