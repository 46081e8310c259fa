// make bench: 10,000 hourly monitors whose slot is the same minute's start,
// each due at that slot plus its own jitter (as the scheduler spreads them:
// within the first 60 s), checked by one monitor replica through the whole
// pipeline (hold, crawl's Scrape of a loopback page, compare, settle), all of
// the fleet on this machine. Measures the scheduling lag from each monitor's
// due time to its check's claim and to its page's fetch start (p50/p99;
// goal p99 <= 2 s), checks per second for the replica, and CPU per check
// (Postgres's, and each service's). Then the same monitors all due at one
// instant, no jitter: how fast one replica drains that queue.
//   node e2e/dist/bench/monitors.bench.js   (or make bench)
//   BENCH_MONITORS=2000 for a shorter run
import { createServer } from 'node:http';
import { availableParallelism } from 'node:os';
import { jitterMs } from '@wap/monitor/domain/schedule';
import { startBenchFleet } from '@wap/testkit';
import pg from 'pg';
import { cpuMeter, formatCpu } from './cpu.js';

const MONITORS = Number(process.env.BENCH_MONITORS ?? 10_000);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const stats = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return {
    p50: Math.round(percentile(sorted, 0.5)),
    p99: Math.round(percentile(sorted, 0.99)),
    max: Math.round(sorted.at(-1) ?? 0),
  };
};

async function main() {
  // The watched site: one path per monitor, the first arrival of each noted.
  const firstFetch = new Map<string, number>();
  const site = createServer((req, res) => {
    const path = req.url ?? '/';
    if (!firstFetch.has(path)) firstFetch.set(path, Date.now());
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><html><head><title>Item</title></head><body><main><article><h1>Item ${path}</h1>
      <p>Stock: 12 units. Price: 19.90. Ships in two days from the central warehouse.</p>
      <p>Reviews are collected after delivery and shown once a week.</p></article></main></body></html>`);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.2', r));
  const base = `http://127.0.0.2:${(site.address() as { port: number }).port}`;
  const fleet = await startBenchFleet({ env: { LOG_LEVEL: 'warn', EGRESS_ALLOW: '127.0.0.2/32' } });
  const db = new pg.Client({ connectionString: fleet.databaseUrl('monitor') });
  await db.connect();
  try {
    const { apiKey } = await fleet.workspace('scale');
    const made = await fetch(`${fleet.gatewayUrl}/v1/monitors`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${base}/p/0`,
        schedule: { every: '1h' },
        notify: { webhook: 'https://example.com/hooks/bench' },
        scrape: { engine: 'fetch' },
      }),
    });
    if (made.status !== 200) throw new Error(`create answered ${made.status}: ${await made.text()}`);
    const template = ((await made.json()) as { monitor: { id: string } }).monitor.id;
    // The rest as copies of the first (made through the API, its target sealed), each on its own page,
    // none due before the bench says so.
    await db.query("UPDATE monitors SET next_check_at = now() + interval '1 day' WHERE id = $1", [template]);
    await db.query(
      `INSERT INTO monitors (id, workspace_id, url, schedule, watch, scrape, target_kind, target_sealed,
                             target_shown, secret_sealed, anchor_at, next_check_at)
       SELECT gen_random_uuid(), workspace_id, $2 || '/p/' || i, schedule, watch, scrape, target_kind, target_sealed,
              target_shown, secret_sealed, anchor_at, next_check_at
         FROM monitors, generate_series(1, $3::int - 1) AS i WHERE id = $1`,
      [template, base, MONITORS],
    );
    await db.query('ANALYZE monitors');
    // One slot for all, a little ahead so the replica is idle when it comes; each due at it plus its jitter.
    const slot = new Date(Math.ceil((Date.now() + 3_000) / 1000) * 1000);
    const hour = 3_600_000;
    const ids = (await db.query<{ id: string }>('SELECT id FROM monitors')).rows.map((r) => r.id);
    await db.query(
      `UPDATE monitors SET anchor_at = $1, next_check_at = v.due
         FROM unnest($2::uuid[], $3::timestamptz[]) AS v(id, due) WHERE monitors.id = v.id`,
      [new Date(slot.getTime() - hour), ids, ids.map((id) => new Date(slot.getTime() + jitterMs(id, hour)))],
    );
    const finished = async (n: number) => {
      for (;;) {
        const { rows } = await db.query('SELECT count(*)::int AS n FROM checks WHERE finished_at IS NOT NULL');
        if (rows[0].n >= n) return;
        await new Promise((r) => setTimeout(r, 500));
      }
    };
    const cpu = cpuMeter();
    await finished(MONITORS);
    const spent = cpu();
    const { rows } = await db.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status <> 'ok')::int AS bad,
              extract(epoch FROM max(finished_at) - $1::timestamptz) * 1000 AS span_ms,
              extract(epoch FROM max(due_at) - $1::timestamptz) * 1000 AS spread_ms
         FROM checks`,
      [slot],
    );
    const checks = await db.query<{ url: string; due: Date; started: Date }>(
      'SELECT m.url, c.due_at AS due, c.started_at AS started FROM checks c JOIN monitors m ON m.id = c.monitor_id',
    );
    const claimLag = stats(checks.rows.map((c) => c.started.getTime() - c.due.getTime()));
    const fetchLag = stats(
      checks.rows.map((c) => (firstFetch.get(new URL(c.url).pathname) ?? Number.NaN) - c.due.getTime()),
    );
    const span = Number(rows[0].span_ms);
    // Throughput while there was a queue: checks over the time from the slot to the last finish.
    const perSecond = +((MONITORS / span) * 1000).toFixed(1);
    const pgMs = +(((spent.postgres ?? 0) / MONITORS) * 1000).toFixed(2);
    const fleetCpuMs = (Object.values(spent).reduce((a, b) => a + b, 0) / MONITORS) * 1000;
    // What the machine's cores could carry at that cost, the whole fleet on them.
    const capacity = Math.round((availableParallelism() * 1000) / fleetCpuMs);
    console.log(
      `\n${MONITORS} hourly monitors, slot ${slot.toISOString()}, due over its first ${Math.round(Number(rows[0].spread_ms))} ms (jitter); one monitor replica, default settings\n`,
    );
    console.log('                               p50 ms   p99 ms   max ms');
    console.log(
      `due -> claimed                 ${String(claimLag.p50).padEnd(8)} ${String(claimLag.p99).padEnd(8)} ${claimLag.max}`,
    );
    console.log(
      `due -> fetch start             ${String(fetchLag.p50).padEnd(8)} ${String(fetchLag.p99).padEnd(8)} ${fetchLag.max}`,
    );
    console.log(`\nchecks: ${rows[0].n} (${rows[0].bad} not ok), all done ${Math.round(span)} ms after the slot`);
    console.log(`checks per second, one replica: ${perSecond}`);
    console.log(`Postgres CPU per check: ${pgMs} ms; whole fleet: ${fleetCpuMs.toFixed(2)} ms`);
    console.log(`checks per second ${availableParallelism()} cores could carry at that cost: ${capacity}`);
    console.log(`CPU during the run: ${formatCpu(spent)}`);
    console.log(`goal p99 due -> fetch start <= 2000 ms: ${fetchLag.p99 <= 2_000 ? 'met' : 'NOT met'}`);

    // A burst: the same monitors all due at one instant, no jitter: how fast one replica drains the queue.
    const burstAt = new Date(Date.now() + 2_000);
    await db.query('UPDATE monitors SET next_check_at = $1', [burstAt]);
    await finished(2 * MONITORS);
    const burst = await db.query(
      `SELECT extract(epoch FROM max(finished_at) - $1::timestamptz) * 1000 AS span_ms FROM checks WHERE due_at = $1`,
      [burstAt],
    );
    const drainMs = Number(burst.rows[0].span_ms);
    const drainRate = +((MONITORS / drainMs) * 1000).toFixed(1);
    console.log(`\nburst: ${MONITORS} due at one instant, drained in ${Math.round(drainMs)} ms: ${drainRate} checks/s`);
    console.log(
      JSON.stringify({
        bench: 'monitors',
        monitors: MONITORS,
        claimLagMs: claimLag,
        fetchLagMs: fetchLag,
        checksPerSecond: perSecond,
        burstChecksPerSecond: drainRate,
        postgresCpuMsPerCheck: pgMs,
        fleetCpuMsPerCheck: +fleetCpuMs.toFixed(2),
        capacityChecksPerSecond: capacity,
        cpuSeconds: spent,
      }),
    );
  } finally {
    await db.end();
    await fleet.stop();
    await fleet.dropDatabases();
    site.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
