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

/** Runs the load generator in a second process and returns what it measured. */
export async function runLoad(config: {
  url: string;
  rate: number;
  seconds: number;
  connections: number;
  headers: Record<string, string>[];
}): Promise<LoadResult> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(__dirname, 'load.js'), JSON.stringify(config)],
    {
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as LoadResult;
}

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
