// Authorize+Settle pairs per second under concurrent load, and the same for a
// crawl that settles a hold page by page. The ledger runs as its own process
// (as in the fleet) on a fresh database; this process drives it with
// BENCH_CLIENTS concurrent clients for BENCH_SECONDS per scenario.
//   node services/billing-ledger/dist/bench/settle.bench.js   (or make bench)
// Besides throughput and latency it prints where the CPU went per call (this
// process's gRPC client, the ledger process, the Postgres backends serving the
// bench database) and the transactions Postgres committed per call, so a run
// on a busy machine still says what one call costs. BENCH_SCENARIOS=one,spread,crawl
// picks scenarios. BENCH_VARIANTS compares ledger settings in one run: each
// `;`-separated list of NAME=value settings starts a ledger of its own, and
// every round runs each scenario on each in turn (BENCH_ROUNDS, default 1),
// e.g. BENCH_VARIANTS='MONEY_BATCH_GATHER=0;MONEY_BATCH_GATHER=1ms'; the
// setting service=NAME runs services/NAME/dist/main.js instead (an older build
// copied there, for before and after in one run; docs/benchmarks.md). The goals
// read the first variant's runs (their median). Prints a table, then one JSON
// line (the last line) for tools.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ledger } from '@wap/proto';
import { createClient } from '@wap/rpc';
import { goal, printGoals, spawnService, TEST_SERVICE_TOKEN } from '@wap/testkit';
import pg from 'pg';
import { freePort, freshDatabase, type LedgerClient, type LedgerProcess, waitServing } from '../test-support.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = 2;
// Enough to keep the ledger busy; more only queue (and lengthen p99) on two cores.
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const PAGE_MC = 1_000n;
const ONLY = process.env.BENCH_SCENARIOS?.split(',');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
/** Ledger settings per variant; one variant of the ledger's defaults unless asked. */
const VARIANTS: Record<string, string>[] = (process.env.BENCH_VARIANTS ?? '').split(';').map((v) =>
  Object.fromEntries(
    v
      .split(/\s+/)
      .filter(Boolean)
      .map((kv) => kv.split('=', 2) as [string, string]),
  ),
);
const variantName = (v: Record<string, string>) =>
  Object.entries(v)
    .map(([k, value]) => `${k}=${value}`)
    .join(' ') || 'defaults';

interface Scenario {
  /** What BENCH_SCENARIOS names it by. */
  id: string;
  name: string;
  /** How many workspaces the clients spread over (1: every call contends for one account lock). */
  workspaces: number;
  /** Settles per hold: 1 is the Authorize+Settle pair; more is a crawl settling page by page. */
  settlesPerHold: number;
}

const SCENARIOS: Scenario[] = [
  { id: 'one', name: `pairs, ${CLIENTS} clients, 1 workspace`, workspaces: 1, settlesPerHold: 1 },
  { id: 'spread', name: `pairs, ${CLIENTS} clients, ${CLIENTS} workspaces`, workspaces: CLIENTS, settlesPerHold: 1 },
  {
    id: 'crawl',
    name: `crawl (10 settles/hold), ${CLIENTS} clients, ${CLIENTS} workspaces`,
    workspaces: CLIENTS,
    settlesPerHold: 10,
  },
];

interface Result {
  scenario: string;
  /** The ledger settings this run had. */
  variant: string;
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
  /** CPU per call (an Authorize or a Settle), in microseconds, by process; null where /proc could not be read. */
  cpu_us_per_call: { bench: number; ledger: number | null; postgres: number | null };
  /** Transactions Postgres committed in the bench database per call: below 1 when calls share one. */
  commits_per_call: number;
}

/** The bench database's backends and committed transactions, read through an admin connection. */
class PostgresSide {
  constructor(
    private readonly admin: pg.Client,
    private readonly database: string,
  ) {}

  async commits(): Promise<number> {
    const { rows } = await this.admin.query(
      'SELECT pg_stat_force_next_flush(), (SELECT xact_commit FROM pg_stat_database WHERE datname = $1)::float8 AS n',
      [this.database],
    );
    return rows[0].n as number;
  }

  /** CPU so far of each backend serving the bench database (this connection's aside); null where /proc is not ours. */
  async cpuMs(): Promise<Map<number, number> | null> {
    const { rows } = await this.admin.query(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [this.database],
    );
    const cpu = new Map<number, number>();
    for (const { pid } of rows) {
      const ms = processCpuMs(pid as number);
      if (ms === null) return null;
      cpu.set(pid as number, ms);
    }
    return cpu;
  }
}

/** The backends' CPU at two marks, over the backends alive at both (the pool may open or close some between). */
function backendsDelta(a: Map<number, number> | null, b: Map<number, number> | null): [number | null, number | null] {
  if (!a || !b) return [null, null];
  let from = 0;
  let to = 0;
  for (const [pid, ms] of b) {
    const before = a.get(pid);
    if (before === undefined) continue;
    from += before;
    to += ms;
  }
  return [from, to];
}

const TICK_MS = 10; // Linux reports process CPU in clock ticks of 1/100 s.

/** User plus system CPU a process has used so far, from /proc; null where there is none. */
function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return null;
  }
}

interface CpuMark {
  at: number;
  bench: number;
  ledger: number | null;
  postgres: Map<number, number> | null;
  commits: number;
}

async function cpuMark(ledgerPid: number | undefined, side: PostgresSide): Promise<CpuMark> {
  const usage = process.cpuUsage();
  return {
    at: performance.now(),
    bench: (usage.user + usage.system) / 1000,
    ledger: processCpuMs(ledgerPid),
    postgres: await side.cpuMs(),
    commits: await side.commits(),
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? Number(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!.toFixed(2)) : 0;

interface Ledger {
  variant: string;
  address: string;
  pid: number | undefined;
}

async function run(target: Ledger, scenario: Scenario, side: PostgresSide): Promise<Result> {
  const { address, pid: ledgerPid } = target;
  const tag = randomBytes(3).toString('hex');
  const clients: LedgerClient[] = Array.from({ length: CLIENTS }, () =>
    createClient(ledger.LedgerService, address, { token: TEST_SERVICE_TOKEN }),
  );
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
  // CPU and commits between the end of warm-up and the end, read while the clients run.
  const marks = Promise.all([
    new Promise((r) => setTimeout(r, measureFrom - performance.now())).then(() => cpuMark(ledgerPid, side)),
    new Promise((r) => setTimeout(r, end - performance.now())).then(() => cpuMark(ledgerPid, side)),
  ]);
  let calls = 0;
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
          if (measured(performance.now())) calls++;
          for (let page = 0; page < scenario.settlesPerHold; page++) {
            const t1 = performance.now();
            await client.settle({
              holdId: hold.holdId,
              idempotencyKey: `s-${key}-${page}`,
              meters: [{ meter: ledger.Meter.PAGE_LOAD, quantity: 1n }],
            });
            const t2 = performance.now();
            if (measured(t2)) calls++;
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
  const [from, to] = await marks;
  const perCall = (a: number | null, b: number | null) =>
    a === null || b === null ? null : Math.round(((b - a) * 1000) / Math.max(1, calls));
  authorizeMs.sort((a, b) => a - b);
  settleMs.sort((a, b) => a - b);
  return {
    scenario: scenario.name,
    variant: target.variant,
    clients: CLIENTS,
    workspaces: scenario.workspaces,
    seconds: SECONDS,
    pairs_per_s: Math.round(holds / SECONDS),
    settles_per_s: Math.round(settles / SECONDS),
    settles_per_hold: scenario.settlesPerHold,
    errors,
    authorize_ms: { p50: percentile(authorizeMs, 0.5), p99: percentile(authorizeMs, 0.99) },
    settle_ms: { p50: percentile(settleMs, 0.5), p99: percentile(settleMs, 0.99) },
    cpu_us_per_call: {
      bench: perCall(from.bench, to.bench)!,
      ledger: perCall(from.ledger, to.ledger),
      postgres: perCall(...backendsDelta(from.postgres, to.postgres)),
    },
    commits_per_call: Number(((to.commits - from.commits) / Math.max(1, calls)).toFixed(3)),
  };
}

function table(results: Result[]): string {
  const header = [
    'scenario',
    'ledger settings',
    'pairs (holds)/s',
    'settles/s',
    'authorize p50/p99 ms',
    'settle p50/p99 ms',
    'CPU µs/call bench/ledger/pg',
    'commits/call',
    'errors',
  ];
  const rows = results.map((r) => [
    r.scenario,
    r.variant,
    String(r.pairs_per_s),
    String(r.settles_per_s),
    `${r.authorize_ms.p50} / ${r.authorize_ms.p99}`,
    `${r.settle_ms.p50} / ${r.settle_ms.p99}`,
    `${r.cpu_us_per_call.bench} / ${r.cpu_us_per_call.ledger ?? '-'} / ${r.cpu_us_per_call.postgres ?? '-'}`,
    String(r.commits_per_call),
    String(r.errors),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const database = await freshDatabase();
  // The level the fleet runs at: every call is logged, as in production.
  const logLevel = process.env.LOG_LEVEL ?? 'info';
  const services: LedgerProcess[] = [];
  const admin = new pg.Client({ connectionString: database.url });
  try {
    const ledgers: Ledger[] = [];
    for (const settings of VARIANTS) {
      const port = await freePort();
      const { service: name, ...env } = settings;
      const service = spawnService(name ?? 'billing-ledger', database.url, port, { LOG_LEVEL: logLevel, ...env });
      services.push(service);
      ledgers.push({ variant: variantName(settings), address: `127.0.0.1:${port}`, pid: service.proc.pid });
    }
    await admin.connect();
    const side = new PostgresSide(admin, new URL(database.url).pathname.slice(1));
    for (const l of ledgers) await waitServing(l.address);
    const results: Result[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const scenario of SCENARIOS) {
        if (ONLY && !ONLY.includes(scenario.id)) continue;
        for (const l of ledgers) results.push(await run(l, scenario, side));
      }
    }
    console.log(
      `billing-ledger: Authorize then Settle (a pair), or Authorize then 10 Settles (a crawl), ` +
        `${SECONDS} s per scenario after ${WARMUP_SECONDS} s warm-up, ledger LOG_LEVEL=${logLevel}`,
    );
    console.log(table(results));
    // The goal is the ledger's under load from many workspaces: the one-workspace scenario measures one lock.
    const spread = results.filter(
      (r) => r.variant === ledgers[0]!.variant && r.workspaces === CLIENTS && r.settles_per_hold === 1,
    );
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
    const goals =
      spread.length === 0
        ? []
        : [
            goal('ledger Authorize+Settle pairs/s', median(spread.map((r) => r.pairs_per_s)), '>=', 1500, 'pairs/s'),
            goal(
              'ledger Authorize or Settle p99',
              median(spread.map((r) => Math.max(r.authorize_ms.p99, r.settle_ms.p99))),
              '<=',
              20,
              'ms',
            ),
          ];
    printGoals(goals);
    console.log(JSON.stringify({ bench: 'billing-ledger.settle', results, goals }));
  } finally {
    await admin.end().catch(() => undefined);
    for (const service of services) service.proc.kill('SIGTERM');
    await Promise.all(services.map((s) => s.exited));
    await database.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
