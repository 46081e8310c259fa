// make bench: a free read through /mcp against the same read through REST.
// One client, one request at a time, interleaved so both see the same
// machine: GET /v1/credits, and POST /mcp with a `tools/call` of
// service_credits_get (the JSON-RPC request an MCP client sends once it is
// initialized; the stateless server answers it on its own). Goal: the MCP
// call costs at most 2 ms more at p50.
//   node e2e/dist/bench/mcp.bench.js   (or make bench)
import { startBenchFleet } from '@wap/testkit';

const CALLS = Number(process.env.BENCH_CALLS ?? 1_000);
const WARMUP = 100;
// Each scale workspace allows 100 requests a second: spread the calls.
const WORKSPACES = 10;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

async function main() {
  const fleet = await startBenchFleet({ env: { LOG_LEVEL: 'warn' } });
  try {
    const keys: string[] = [];
    for (let i = 0; i < WORKSPACES; i++) keys.push((await fleet.workspace('scale')).apiKey);
    const rest = async (key: string) => {
      const res = await fetch(`${fleet.gatewayUrl}/v1/credits`, { headers: { authorization: `Bearer ${key}` } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`REST answered ${res.status}: ${body}`);
    };
    let id = 0;
    const mcp = async (key: string) => {
      const res = await fetch(`${fleet.gatewayUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: ++id,
          method: 'tools/call',
          params: { name: 'service_credits_get', arguments: {} },
        }),
      });
      const body = await res.text();
      if (res.status !== 200 || !body.includes('"structuredContent"') || body.includes('"isError":true'))
        throw new Error(`MCP answered ${res.status}: ${body.slice(0, 300)}`);
    };
    const times = { rest: [] as number[], mcp: [] as number[] };
    for (let i = 0; i < WARMUP + CALLS; i++) {
      const key = keys[i % keys.length] as string;
      for (const [name, call] of [
        ['rest', rest],
        ['mcp', mcp],
      ] as const) {
        const t0 = performance.now();
        await call(key);
        if (i >= WARMUP) times[name].push(performance.now() - t0);
      }
    }
    const stats = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return { p50: +percentile(sorted, 0.5).toFixed(2), p99: +percentile(sorted, 0.99).toFixed(2) };
    };
    const r = stats(times.rest);
    const m = stats(times.mcp);
    const overhead = { p50: +(m.p50 - r.p50).toFixed(2), p99: +(m.p99 - r.p99).toFixed(2) };
    console.log(`\nA free read, ${CALLS} calls each way, one at a time, interleaved\n`);
    console.log('surface                              p50 ms  p99 ms');
    console.log('-----------------------------------  ------  ------');
    console.log(`REST GET /v1/credits                 ${String(r.p50).padEnd(6)}  ${r.p99}`);
    console.log(`MCP tools/call service_credits_get   ${String(m.p50).padEnd(6)}  ${m.p99}`);
    console.log(
      `\nMCP overhead: p50 ${overhead.p50} ms, p99 ${overhead.p99} ms; goal p50 <= 2 ms: ${overhead.p50 <= 2 ? 'met' : 'NOT met'}`,
    );
    console.log(JSON.stringify({ bench: 'mcp-overhead', calls: CALLS, rest: r, mcp: m, overhead }));
  } finally {
    await fleet.stop();
    await fleet.dropDatabases();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
