#!/usr/bin/env node
import { execFileSync } from 'node:child_process';
// `make up` / `make down`: the whole fleet on loopback, in the foreground.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SERVICE_TABLE, type ServiceName, serviceInfo } from '@wap/config';
import { localInfra } from '@wap/db/local-infra';
import { demoSettings, demoUrl } from './demo.js';
import { readEnvFile } from './env-file.js';
import { Fleet, ROOT } from './fleet.js';
import { settings } from './settings.js';

const DATA = process.env.WAP_DATA_DIR ?? path.join(ROOT, '.data');
const PID_FILE = path.join(DATA, 'fleet.pid');
/** Present while Postgres and NATS run because `make up` started them: only then does stopping stop them. */
const INFRA_MARK = path.join(DATA, 'infra-started-by-up');

/** The model agent runs get by default (docs/models.md). */
const EMBEDDED_MODEL = 'qwen2.5-coder-1.5b';

const ENV_FILE = process.env.WAP_ENV_FILE ?? path.join(ROOT, '.env');

/** The fleet `make up` runs: fixed ports (each overridable), restarted when a service dies. */
function upFleet(env: Record<string, string>): Fleet {
  // WAP_GRPC_BASE_PORT is the gateway's; every service keeps its default port's distance from the gateway's.
  const gatewayDefault = serviceInfo('gateway').grpcPort;
  const grpcShift = Number(process.env.WAP_GRPC_BASE_PORT ?? gatewayDefault) - gatewayDefault;
  return new Fleet({
    infra: localInfra(),
    dbPrefix: process.env.WAP_DB_PREFIX ?? 'wap_',
    env,
    logDir: path.join(DATA, 'logs'),
    ports: {
      http: Number(process.env.WAP_HTTP_PORT ?? 8080),
      cdp: Number(process.env.WAP_CDP_PORT ?? 9222),
      grpc: Object.fromEntries(SERVICE_TABLE.map((s) => [s.name, s.grpcPort + grpcShift])) as Record<
        ServiceName,
        number
      >,
    },
    echo: process.env.WAP_ECHO_LOGS === '1',
    restart: true,
  });
}

/**
 * `up`'s first step, in a process of its own: the settings of .env (docs/settings.md), validated, then every
 * database migrated; prints the settings as JSON, as its last line.
 */
async function prepare(): Promise<void> {
  const env = readEnvFile(ENV_FILE, new Set(settings().map((s) => s.variable)));
  await upFleet(env).migrate();
  process.stdout.write(`\n${JSON.stringify(env)}\n`);
}

async function up(): Promise<void> {
  if (existsSync(PID_FILE)) {
    const pid = Number(readFileSync(PID_FILE, 'utf8'));
    if (isAlive(pid)) {
      console.log(`The fleet is already running (pid ${pid}); \`make down\` stops it.`);
      return;
    }
  }
  // Settings checked and databases migrated by a process of their own: what that loads (every service's
  // settings schema, the migration engine) would otherwise stay resident in this one for as long as the fleet
  // runs (make bench's idle.bench).
  const envFile = ENV_FILE;
  let prepared: Buffer;
  try {
    prepared = execFileSync(process.execPath, [__filename, 'prepare'], { stdio: ['ignore', 'pipe', 'inherit'] });
  } catch {
    process.exit(1); // the step said why on stderr
  }
  // Its last line is the settings; anything before it (the migrations applied) is for the person.
  const lines = prepared.toString().trimEnd().split('\n');
  const env = JSON.parse(lines.pop() ?? '{}') as Record<string, string>;
  // What .env set, before make up adds its own (the model's file, the demo shop).
  const fromFile = Object.keys(env);
  if (lines.length > 0) console.log(lines.join('\n'));
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
  // The demo shop (docs/demo.md): on an address of its own, the one loopback address runs may reach.
  Object.assign(env, demoSettings(env, Number(process.env.WAP_HTTP_PORT ?? 8080)));
  const fleet = upFleet(env);
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
    Demo:     ${demoUrl(env.DEMO_SITE as string)}   (a shop for a first agent run: README.md, "A first agent run")
    API docs: ${fleet.gatewayUrl}/docs
    Ready:    ${fleet.gatewayUrl}/readyz
    Logs:     ${path.join(DATA, 'logs')}/<service>.log
    Settings: ${fromFile.length ? `${fromFile.join(', ')} from ${envFile}` : `none (${envFile} sets them; see .env.example)`}
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
else if (command === 'prepare')
  void prepare().catch((err) => {
    console.error(`make up failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
else {
  console.error('usage: cli.js up|down');
  process.exit(2);
}
