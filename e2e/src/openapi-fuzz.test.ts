import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type Fleet, ROOT } from '@wap/fleet';
import { readLogLines, startFleet } from '@wap/testkit';

// Schemathesis (pinned in scripts/toolchain.sh) fuzzes every operation of GET /v1/openapi.json
// against a whole fleet. What it sends is fixed: a fixed seed, every Python package pinned, a
// bounded number of examples per operation, no example database carried between runs, one
// worker (the requests share a workspace, so their order matters), no time budget. Only the
// stateful phase follows the fleet's answers (crawl ids, crawl progress), so its case count can
// differ by a few from run to run; the failures found do not.
const SCHEMATHESIS = path.join(ROOT, '.tools/bin/st');
// Another seed or more examples explore further (OPENAPI_FUZZ_SEED=7 OPENAPI_FUZZ_EXAMPLES=200);
// the suite runs the fixed ones.
const SEED = process.env.OPENAPI_FUZZ_SEED ?? '1';
const EXAMPLES_PER_OPERATION = process.env.OPENAPI_FUZZ_EXAMPLES ?? '50';

const CHECKS = [
  // The point of the run: no input makes the fleet answer 5xx.
  'not_a_server_error',
  // Every answer, 2xx or error, has the shape the document gives it.
  'response_schema_conformance',
  // Every status is one the document lists for the operation. No false alarm seen: every route
  // lists the errors any authenticated route can answer (COMMON_ERRORS), and the answers to
  // methods a path does not have (405) are judged by schemathesis's unsupported-method test.
  'status_code_conformance',
  // Every answer is application/json, as the document says; none is HTML or text.
  'content_type_conformance',
  // Documented response headers (RateLimit, X-Request-Id, Retry-After) have their types.
  'response_headers_conformance',
];

let fleet: Fleet;
let key: string;

before(async () => {
  fleet = await startFleet({
    env: {
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT: '10s',
      // EGRESS_ALLOW stays unset (private and loopback sites are refused), and no generated URL
      // may reach the public internet either: see loopback-only.ts.
      NODE_OPTIONS: `--require=${path.join(__dirname, 'loopback-only.js')}`,
    },
  });
  ({ apiKey: key } = await fleet.workspace('pro'));
});
after(async () => {
  await fleet?.stop();
  await fleet?.dropDatabases();
});

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    // Asynchronous on purpose: the fleet's services write their logs through this process.
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

/** The errors the services logged, one line per distinct service and message, with a count. */
function serverErrors(): string[] {
  const counts = new Map<string, number>();
  for (const file of readdirSync(fleet.settings.logDir).filter((f) => f.endsWith('.log'))) {
    for (const line of readLogLines(path.join(fleet.settings.logDir, file))) {
      if (line.level !== 'error' && line.level !== 'fatal') continue;
      const err = line.err as { type?: string; message?: string } | undefined;
      const what = `${line.service} ${line.rpc ?? ''} ${err?.type ?? ''}: ${err?.message ?? line.msg}`;
      const id = what.replace(/\s+/g, ' ').slice(0, 300);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  }
  return [...counts].map(([what, n]) => `${n}x ${what}`);
}

/** How many lookups and connections loopback-only.ts turned away (the generated URLs' hosts). */
function refusedOffLoopback(): number {
  return readdirSync(fleet.settings.logDir)
    .filter((f) => f.endsWith('.log'))
    .flatMap((f) => readFileSync(path.join(fleet.settings.logDir, f), 'utf8').split('\n'))
    .filter((l) => l.startsWith('loopback-only: refused')).length;
}

/** The FAILURES section of schemathesis's report: each failure with its curl reproduction. */
const failuresOf = (output: string) => output.slice(Math.max(0, output.indexOf('= FAILURES =') - 40)).trim();

test('schemathesis finds no server error and no answer outside the OpenAPI document', {
  timeout: 600_000,
}, async (t) => {
  assert.ok(
    existsSync(SCHEMATHESIS),
    `schemathesis is not installed at ${SCHEMATHESIS}: make install (scripts/toolchain.sh) provisions it`,
  );
  const work = mkdtempSync(path.join(tmpdir(), 'wap-fuzz-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  const { code, output } = await run(
    SCHEMATHESIS,
    [
      'run',
      `${fleet.gatewayUrl}/v1/openapi.json`,
      '--header',
      `Authorization: Bearer ${key}`,
      '--checks',
      CHECKS.join(','),
      '--max-examples',
      EXAMPLES_PER_OPERATION,
      '--seed',
      SEED,
      '--generation-database',
      'none',
      '--workers',
      '1',
      // Hypothesis's too_slow health check times the generator: wall-clock in the verdict.
      '--suppress-health-check',
      'too_slow',
      '--request-timeout',
      '60',
      '--no-color',
      // Every valid call opens a real browser session (a Chromium, a slot, a hold): connect.test.ts
      // covers its inputs, answers and limits; fuzzing it would only queue browsers.
      '--exclude-path-regex',
      '^/connect',
    ],
    {
      cwd: work,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        PYTHONPATH: path.join(ROOT, 'e2e/src'),
        SCHEMATHESIS_HOOKS: 'openapi_fuzz_hooks',
        PYTHONDONTWRITEBYTECODE: '1',
        // The terminal width decides where schemathesis wraps; fixed, the output is the same everywhere.
        COLUMNS: '120',
      },
    },
  );
  const summary = output.slice(output.lastIndexOf('= SUMMARY ='));
  t.diagnostic(
    summary
      .split('\n')
      .filter((l) => /Test cases|generated|failures?|passed|in \d/.test(l))
      .join(' | '),
  );
  t.diagnostic(`connections off loopback refused: ${refusedOffLoopback()}`);
  assert.equal(
    code,
    0,
    `schemathesis failed (exit ${code}):\n${failuresOf(output)}\n\nErrors the services logged:\n${serverErrors().join('\n')}`,
  );
});
