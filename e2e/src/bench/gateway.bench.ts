// make bench: authenticated free reads through the gateway against a bare
// HTTP server answering the same bytes, all driven by the same load generator
// in processes of their own. GET /v1/credits is auth, the rate limit and a
// credit view the gateway caches until the ledger announces a change
// (decision 0008); GET /v1/usage asks the ledger over gRPC every time, for
// comparison. Goal (decision 0008): p99 under 20 ms at 1,000 requests/s.
import { goal, printGoals, startBenchFleet } from '@wap/testkit';
import { cpuMeter, formatCpu, waitForQuiet } from './cpu.js';
import { runLoad, startBareServer, table } from './run-load.js';

const RATE = Number(process.env.BENCH_RATE ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
// Each scale workspace allows 6,000 requests a minute (100/s): spread the load.
const WORKSPACES = Math.ceil((RATE * 1.5) / 100);

async function main() {
  // BENCH_FLEET_ENV (JSON) adds settings to every service, e.g. to compare with tracing off.
  const fleet = await startBenchFleet({
    env: { LOG_LEVEL: 'warn', ...JSON.parse(process.env.BENCH_FLEET_ENV ?? '{}') },
  });
  try {
    const keys: string[] = [];
    for (let i = 0; i < WORKSPACES; i++) keys.push((await fleet.workspace('scale')).apiKey);
    const headers = keys.map((key) => ({ authorization: `Bearer ${key}` }));
    const sample = await fetch(`${fleet.gatewayUrl}/v1/credits`, { headers: headers[0] });
    if (sample.status !== 200) throw new Error(`credits answered ${sample.status}: ${await sample.text()}`);
    const bare = await startBareServer(await sample.text(), sample.headers.get('content-type') ?? 'application/json');
    try {
      const busy = await waitForQuiet();
      console.log(`the machine was ${(busy * 100).toFixed(0)}% busy before the runs`);
      const warm = { rate: RATE, seconds: 3, connections: 50 };
      await runLoad({ ...warm, url: `${fleet.gatewayUrl}/v1/credits`, headers });
      await runLoad({ ...warm, url: bare.url, headers });
      const settings = { rate: RATE, seconds: SECONDS, connections: 50 };
      const cpu = cpuMeter();
      const gateway = await runLoad({ ...settings, url: `${fleet.gatewayUrl}/v1/credits`, headers });
      const spent = cpu();
      const floor = await runLoad({ ...settings, url: bare.url, headers });
      await runLoad({ ...warm, url: `${fleet.gatewayUrl}/v1/usage`, headers });
      const usageCpu = cpuMeter();
      const usage = await runLoad({ ...settings, url: `${fleet.gatewayUrl}/v1/usage`, headers });
      const usageSpent = usageCpu();
      const rows = [
        { target: 'gateway GET /v1/credits', ...flatten(gateway) },
        { target: 'bare node:http, same bytes', ...flatten(floor) },
        { target: 'gateway GET /v1/usage (gRPC + SQL each)', ...flatten(usage) },
      ];
      console.log(
        `\nAuthenticated free reads at ${RATE} req/s for ${SECONDS} s, 50 connections, ${WORKSPACES} workspaces\n`,
      );
      console.log(table(rows));
      const goals = [
        goal('free read p99, gateway / bare node:http', gateway.p99 / Math.max(floor.p99, 0.1), '<=', 3, '×'),
        goal(`GET /v1/usage served at ${RATE} rps`, usage.requestsPerSecond, '>=', RATE * 0.98, 'rps'),
        goal(`GET /v1/usage p99 at ${RATE} rps`, usage.p99, '<=', 50, 'ms'),
      ];
      console.log('');
      printGoals(goals);
      const perRequest = Object.fromEntries(
        Object.entries(spent).map(([k, s]) => [k, Number(((s * 1000) / Math.max(gateway.total, 1)).toFixed(3))]),
      );
      console.log(`CPU during the credits run: ${formatCpu(spent)} (ms per request: ${JSON.stringify(perRequest)})`);
      console.log(`CPU during the usage run: ${formatCpu(usageSpent)}`);
      console.log(
        JSON.stringify({
          bench: 'gateway-free-reads',
          rate: RATE,
          gateway,
          bare: floor,
          usage,
          cpuMsPerRequest: perRequest,
          goals,
        }),
      );
    } finally {
      await bare.stop();
    }
  } finally {
    await fleet.stop();
    await fleet.dropDatabases();
  }
}

function flatten(r: Awaited<ReturnType<typeof runLoad>>) {
  return {
    'req/s': r.requestsPerSecond.toFixed(0),
    p50: `${r.p50} ms`,
    p90: `${r.p90} ms`,
    p99: `${r.p99} ms`,
    max: `${r.max} ms`,
    '2xx': r.statuses['2xx'] ?? 0,
    non2xx: (r.statuses['4xx'] ?? 0) + (r.statuses['5xx'] ?? 0),
    // Offered but never completed: refused or timed out, or never sent because the
    // connections were all waiting (a target slower than the offered rate).
    'not done': r.statuses.missing ?? 0,
  };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
