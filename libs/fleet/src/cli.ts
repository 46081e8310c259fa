#!/usr/bin/env node
import { execFileSync } from 'node:child_process';
// `make up` / `make down`: the whole fleet on loopback, in the foreground.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { localInfra } from '@wap/db';
import { readEnvFile } from './env-file.js';
import { Fleet, ROOT, SERVICES, type ServiceName } from './fleet.js';
import { settings } from './settings.js';

const DATA = process.env.WAP_DATA_DIR ?? path.join(ROOT, '.data');
const PID_FILE = path.join(DATA, 'fleet.pid');
/** Present while Postgres and NATS run because `make up` started them: only then does stopping stop them. */
const INFRA_MARK = path.join(DATA, 'infra-started-by-up');

/** The model agent runs get by default (docs/models.md). */
const EMBEDDED_MODEL = 'qwen2.5-coder-1.5b';

async function up(): Promise<void> {
  if (existsSync(PID_FILE)) {
    const pid = Number(readFileSync(PID_FILE, 'utf8'));
    if (isAlive(pid)) {
      console.log(`The fleet is already running (pid ${pid}); \`make down\` stops it.`);
      return;
    }
  }
  // Settings for the services (docs/settings.md), validated before anything starts.
  const envFile = process.env.WAP_ENV_FILE ?? path.join(ROOT, '.env');
  const env = readEnvFile(envFile, new Set(settings().map((s) => s.variable)));
  writeFileSync(PID_FILE, String(process.pid));
  if (process.env.WAP_STOP_INFRA === '1') writeFileSync(INFRA_MARK, `${process.pid}\n`);
  // The embedded agent model (docs/models.md): fetched alongside, never waited for; runs wait for it instead.
  if (!env.EMBEDDED_MODEL_PATH) {
    execFileSync(path.join(ROOT, 'scripts/fetch-model.sh'), ['--background', EMBEDDED_MODEL], { stdio: 'inherit' });
    env.EMBEDDED_MODEL_PATH = execFileSync('node', [
      path.join(ROOT, 'scripts/fetch-model.mjs'),
      '--path',
      EMBEDDED_MODEL,
    ])
      .toString()
      .trim();
  }
  const httpPort = Number(process.env.WAP_HTTP_PORT ?? 8080);
  const grpcBase = Number(process.env.WAP_GRPC_BASE_PORT ?? 50050);
  const fleet = new Fleet({
    infra: localInfra(),
    dbPrefix: process.env.WAP_DB_PREFIX ?? 'wap_',
    env,
    logDir: path.join(DATA, 'logs'),
    ports: {
      http: httpPort,
      cdp: Number(process.env.WAP_CDP_PORT ?? 9222),
      grpc: Object.fromEntries(
        SERVICES.map((s) => [s, s === 'gateway' ? grpcBase : grpcBase + 1 + SERVICES.indexOf(s)]),
      ) as Record<ServiceName, number>,
    },
    echo: process.env.WAP_ECHO_LOGS === '1',
    restart: true,
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping the fleet...');
    await fleet.stop();
    rmSync(PID_FILE, { force: true });
    if (existsSync(INFRA_MARK)) {
      execFileSync(path.join(ROOT, 'scripts/infra.sh'), ['stop'], { stdio: 'inherit' });
      rmSync(INFRA_MARK, { force: true });
    }
    console.log('Stopped.');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());

  await fleet.migrate();
  await fleet.start();
  await fleet.waitReady(120_000);
  const seed = await fleet.admin<{
    apiKey: string;
    workspace: string;
    plan: string;
    login: { email: string; password: string };
  }>('seed', '--key-file', path.join(DATA, 'api-key'), '--login-file', path.join(DATA, 'console-login'));
  console.log(`
  The fleet is up.
    Gateway:  ${fleet.gatewayUrl}
    API key:  ${seed.apiKey}   (workspace "${seed.workspace}", plan ${seed.plan}; kept in .data/api-key)
    Console:  ${fleet.gatewayUrl}/console   (${seed.login.email}, password ${seed.login.password}; kept in .data/console-login)
    Try:      curl -H "Authorization: Bearer $(cat .data/api-key)" ${fleet.gatewayUrl}/v1/credits
    API docs: ${fleet.gatewayUrl}/docs
    Ready:    ${fleet.gatewayUrl}/readyz
    Logs:     ${path.join(DATA, 'logs')}/<service>.log
    Settings: ${Object.keys(env).length ? `${Object.keys(env).join(', ')} from ${envFile}` : `none (${envFile} sets them; see .env.example)`}
  Ctrl-C or \`make down\` stops it.
`);
}

async function down(): Promise<void> {
  if (!existsSync(PID_FILE)) return;
  const pid = Number(readFileSync(PID_FILE, 'utf8'));
  if (isAlive(pid)) process.kill(pid, 'SIGTERM');
  // Wait for the services to drain before the caller stops Postgres and NATS under them.
  for (let i = 0; i < 300 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  rmSync(PID_FILE, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// Loose on purpose: `make up` passes nothing else, and an unknown flag should not stop the fleet from starting.
const command = parseArgs({ strict: false, allowPositionals: true }).positionals[0];
if (command === 'up')
  void up().catch((err) => {
    console.error(`make up failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
else if (command === 'down') void down();
else {
  console.error('usage: cli.js up|down');
  process.exit(2);
}
