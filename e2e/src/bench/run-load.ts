import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { promisify } from 'node:util';

export interface LoadResult {
  requestsPerSecond: number;
  total: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  statuses: Record<string, number>;
}

/**
 * Drives `url` at `rate` requests/s for `seconds` with hey (scripts/bench.sh
 * installs it), a Go load generator, in processes of its own. hey sends one
 * header set, so each set (one API key per workspace, say) gets its own hey
 * process with an equal share of the rate and connections; the per-request
 * times they print as CSV are merged before the percentiles are taken.
 * Latencies are in milliseconds, to hey's 0.1 ms resolution.
 */
export async function runLoad(config: {
  url: string;
  rate: number;
  seconds: number;
  connections: number;
  headers: Record<string, string>[];
}): Promise<LoadResult> {
  const sets = config.headers.length > 0 ? config.headers : [{}];
  const connections = Math.max(1, Math.floor(config.connections / sets.length));
  // hey's -q is per connection (its "worker").
  const perWorker = config.rate / sets.length / connections;
  const runs = await Promise.all(
    sets.map((headers) =>
      promisify(execFile)(
        'hey',
        [
          '-z',
          `${config.seconds}s`,
          '-c',
          String(connections),
          ...(config.rate > 0 ? ['-q', perWorker.toFixed(3)] : []),
          '-o',
          'csv',
          ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
          config.url,
        ],
        { maxBuffer: 256 * 1024 * 1024 },
      ),
    ),
  );
  const times: number[] = [];
  const statuses: Record<string, number> = {};
  for (const { stdout } of runs) {
    // response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset
    for (const line of stdout.split('\n').slice(1)) {
      const cells = line.split(',');
      if (cells.length < 8) continue;
      times.push(Number(cells[0]) * 1000);
      const klass = `${cells[6]!.trim()[0]}xx`;
      statuses[klass] = (statuses[klass] ?? 0) + 1;
    }
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => round(times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)] ?? 0);
  // Requests hey could not complete (refused, timed out) print no line: the
  // shortfall against what was offered shows them.
  const offered = config.rate * config.seconds;
  if (config.rate > 0 && times.length < offered * 0.98) statuses.missing = Math.round(offered - times.length);
  return {
    requestsPerSecond: times.length / config.seconds,
    total: times.length,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: round(times.at(-1) ?? 0),
    statuses,
  };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** Starts the bare server in its own process; returns its URL and a stop function. */
export async function startBareServer(body: string, contentType: string) {
  const proc = spawn(
    process.execPath,
    [path.join(__dirname, 'bare-server.js'), JSON.stringify({ body, contentType })],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const [chunk] = (await once(proc.stdout, 'data')) as [Buffer];
  const { port } = JSON.parse(chunk.toString()) as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      proc.kill('SIGTERM');
      await once(proc, 'exit');
    },
  };
}

export function table(rows: Record<string, string | number>[]): string {
  const keys = Object.keys(rows[0] ?? {});
  const width = keys.map((k) => Math.max(k.length, ...rows.map((r) => String(r[k]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(width[i] ?? 0)).join('  ');
  return [
    line(keys),
    line(width.map((w) => '-'.repeat(w))),
    ...rows.map((r) => line(keys.map((k) => String(r[k])))),
  ].join('\n');
}
