// `make up`'s own command run as a newcomer runs it, but with data, ports,
// databases and .env of its own: for the make-up tests and the idle bench.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '@wap/fleet';
import { freePort, infra } from '@wap/testkit';

const CLI = path.join(ROOT, 'libs/fleet/dist/cli.js');

/** `make up`'s own command (libs/fleet/dist/cli.js up) with its data, ports, databases and .env of its own. */
export async function makeUp(dotenv: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'wap-up-'));
  writeFileSync(path.join(dir, '.env'), dotenv);
  const local = infra();
  const dbPrefix = `t${randomBytes(4).toString('hex')}_`;
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATABASE_ADMIN_URL: local.adminUrl,
    NATS_URL: local.natsUrl,
    WAP_DATA_DIR: dir,
    WAP_ENV_FILE: path.join(dir, '.env'),
    WAP_DB_PREFIX: dbPrefix,
    WAP_HTTP_PORT: String(await freePort()),
    WAP_CDP_PORT: String(await freePort()),
    // Seven consecutive ports from a random base below Linux's ephemeral range (32768 on), where the ports
    // other tests' browsers and clients were given live: a clash fails the start loudly, not the assertions.
    WAP_GRPC_BASE_PORT: String(10_000 + Math.floor(Math.random() * 20_000)),
  };
  const child = spawn(process.execPath, [CLI, 'up'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output, dbPrefix, dir, infra: local };
}

export async function upAndReady(run: Awaited<ReturnType<typeof makeUp>>): Promise<{ url: string; key: string }> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const up = /Gateway:\s+(\S+)\n\s+API key:\s+(\S+)/.exec(run.output());
    if (up?.[1] && up[2]) return { url: up[1], key: up[2] };
    if (run.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`make up did not come up:\n${run.output()}`);
}
