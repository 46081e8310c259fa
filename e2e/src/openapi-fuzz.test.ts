import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type Fleet, ROOT } from '@wap/fleet';
import { readLogLines, startFleet } from '@wap/testkit';
import { random as seeded } from '@wap/testsite';
import { type FuzzCase, mcpCases, oauthCases, problemWith } from './protocol-fuzz.js';

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
// Requests of the second pass (protocol-fuzz.ts) to each of /mcp and the OAuth endpoints.
const PROTOCOL_CASES = Number(process.env.PROTOCOL_FUZZ_CASES ?? '250');

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
      // Every valid call opens a real browser session (a Chromium, a slot, a hold): connect.suite.ts
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

/** A curl line that sends `c` again, its body cut to what a reader needs. */
function curlOf(c: FuzzCase): string {
  const headers = Object.entries(c.headers).map(([k, v]) => ` -H '${k}: ${v.slice(0, 80)}'`);
  const body = c.body === undefined ? '' : ` --data-binary '${c.body.slice(0, 200)}${c.body.length > 200 ? '…' : ''}'`;
  return `curl -X ${c.method} '${fleet.gatewayUrl}${c.path.slice(0, 300)}'${headers.join('')}${body}`;
}

test('/mcp and the OAuth endpoints answer hostile input in their own shapes, never a 5xx', {
  timeout: 300_000,
}, async (t) => {
  const random = seeded(Number(SEED));
  const { apiKey } = await fleet.workspace('pro');
  // Real values the draws mix in, so they get past the first check: a client, its redirect, a sign-in step.
  const redirectUri = 'http://127.0.0.1:9/callback';
  const client = (await (
    await fetch(`${fleet.gatewayUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [redirectUri], client_name: 'fuzz' }),
    })
  ).json()) as { client_id: string };
  const authorize = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    code_challenge: 'A'.repeat(43),
    code_challenge_method: 'S256',
    resource: `${fleet.gatewayUrl}/mcp`,
    scope: 'api',
    state: 's',
  });
  const signIn = await (await fetch(`${fleet.gatewayUrl}/oauth/authorize?${authorize}`)).text();
  const step = /name="request" value="([^"]+)"/.exec(signIn)?.[1];
  assert.ok(step, 'the sign-in page carries its signed step');
  const known: Record<string, unknown> = {
    ...Object.fromEntries(authorize),
    redirect_uris: [redirectUri],
    request: step,
    step: 'sign-in',
    grant_type: 'authorization_code',
    code_verifier: 'v'.repeat(43),
  };
  const cases = [...mcpCases(random, apiKey, PROTOCOL_CASES), ...oauthCases(random, known, PROTOCOL_CASES)];

  const gatewayLog = fleet.logFile('gateway');
  const errorsBefore = readLogLines(gatewayLog).filter((l) => l.level === 'error').length;
  const problems: string[] = [];
  /** Problems by kind and endpoint, for the summary. */
  const kinds = new Map<string, number>();
  let refusedByClient = 0;
  for (const c of cases) {
    let res: Response;
    try {
      res = await fetch(`${fleet.gatewayUrl}${c.path}`, {
        method: c.method,
        headers: c.headers,
        body: c.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(30_000),
      });
    } catch (err) {
      // A header value fetch itself will not send: nothing reached the gateway.
      if (err instanceof TypeError && !(err.cause instanceof Error)) {
        refusedByClient++;
        continue;
      }
      throw err;
    }
    const answer = { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
    const problem = problemWith(c, answer);
    if (!problem) continue;
    problems.push(`${problem} (${answer.text.slice(0, 160)}):\n  ${curlOf(c)}`);
    const kind = `${problem}: ${c.method} ${c.path.split('?')[0]}`;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  t.diagnostic(`${cases.length} requests, ${refusedByClient} not sendable, ${problems.length} problems`);
  const logged = readLogLines(gatewayLog)
    .filter((l) => l.level === 'error')
    .slice(errorsBefore)
    .map((l) => `${l.msg}: ${(l.err as { message?: string } | undefined)?.message ?? ''}`);
  assert.deepEqual(
    problems.slice(0, 10),
    [],
    `${problems.length} answers no client could read:\n${[...kinds].map(([k, n]) => `${n}x ${k}`).join('\n')}`,
  );
  assert.deepEqual(logged, [], 'the gateway logged no error');
});
