// make bench: the browser-agent task suite (e2e/src/agent-tasks: tasks of the
// kinds people give browser agents, on a loopback site that records what each
// run did to it) through the fleet's public API. Each task is a POST
// /v1/agent, K at a time, polled until settled and checked against the site
// and the run's answer. Reports the success rate (by kind, and of the simple
// tasks by single and multi act: AgentTask.acts), steps and
// seconds per task, each step's time split into the model's and our own
// (the step timings among the run's events), tokens; then the latency of
// POST /v1/agent with 50 submits at once, each run cancelled once accepted.
//   node e2e/dist/bench/agent.bench.js   (or make bench)
//   AGENT_BENCH_MODEL       the model runs name (an endpoint of AGENT_MODELS); unset, the fleet's default
//   AGENT_BENCH_CONCURRENCY runs at once (2)
//   AGENT_BENCH_TIMEOUT     seconds from submit before a run is cancelled and failed (900)
//   AGENT_BENCH_MAX_STEPS   the runs' step cap (25; 0: the fleet's default)
//   AGENT_BENCH_TASKS       only these tasks: ids, kinds or acts (single, multi), comma-separated
//   AGENT_BENCH_SEEDS       the seeds the simple tasks are generated from, comma-separated
//   AGENT_BENCH_PROFILE     the step profile or lab arm the runs ask for (the fleet enrolls every workspace in arms)
//                           ("1,2,3"): 13 tasks a seed, other seeds other pages and words
//   AGENT_BENCH_SUBMITS     submits at once for the latency figure (50)
//   AGENT_BENCH_REPORT      a file to write the JSON report to as well, every task's result in it
//   AGENT_MODELS, AGENT_DEFAULT_MODEL, EMBEDDED_MODEL_PATH, EMBEDDED_MODEL_THREADS, AGENT_CONCURRENCY
//                           passed to the fleet; with no EMBEDDED_MODEL_PATH, the cached
//                           qwen2.5-coder-1.5b of scripts/fetch-model.sh when it is there
//   BENCH_FLEET_ENV         JSON of further settings for every service
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '@wap/fleet';
import { startBenchFleet } from '@wap/testkit';
import { SIMPLE_SEEDS, startTaskSite, tasksOfSeeds } from '../agent-tasks/index.js';
import {
  type AgentApi,
  ApiFailure,
  agentApi,
  runSuite,
  type SubmitBody,
  type SuiteSummary,
  submitLatency,
  summarize,
  type TaskResult,
} from '../agent-tasks/runner.js';
import { table } from './run-load.js';

const MODEL = process.env.AGENT_BENCH_MODEL || undefined;
const CONCURRENCY = Number(process.env.AGENT_BENCH_CONCURRENCY ?? 2);
const TIMEOUT_MS = Number(process.env.AGENT_BENCH_TIMEOUT ?? 900) * 1000;
const MAX_STEPS = Number(process.env.AGENT_BENCH_MAX_STEPS ?? 25) || undefined;
const PROFILE = process.env.AGENT_BENCH_PROFILE || undefined;
const SUBMITS = Number(process.env.AGENT_BENCH_SUBMITS ?? 50);
const ONLY = (process.env.AGENT_BENCH_TASKS ?? '').split(',').filter(Boolean);
const SEEDS = (process.env.AGENT_BENCH_SEEDS || SIMPLE_SEEDS.join(','))
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean)
  .map(Number);
const EMBEDDED = 'qwen2.5-coder-1.5b';
const FLEET_SETTINGS = [
  'AGENT_MODELS',
  'AGENT_DEFAULT_MODEL',
  'EMBEDDED_MODEL_PATH',
  'EMBEDDED_MODEL_THREADS',
  'AGENT_CONCURRENCY',
];

/** The agent settings of this environment, and the cached embedded model when none is named. */
function agentSettings(): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const name of FLEET_SETTINGS) if (process.env[name]) settings[name] = process.env[name] as string;
  if (!settings.EMBEDDED_MODEL_PATH) {
    const fetchModel = (flag: string) =>
      execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'fetch-model.mjs'), flag, EMBEDDED], {
        encoding: 'utf8',
      }).trim();
    try {
      if (fetchModel('--status').endsWith(' ready')) settings.EMBEDDED_MODEL_PATH = fetchModel('--path');
    } catch {
      // No cache: the fleet runs with what it was given.
    }
  }
  return settings;
}

/** Whether the fleet serves agent runs: a submit is accepted (and cancelled at once), or why not. */
async function served(api: AgentApi, probe: SubmitBody): Promise<string | undefined> {
  try {
    const run = await api.submit(probe);
    await api.cancel(run.id);
    return undefined;
  } catch (err) {
    if (err instanceof ApiFailure && (err.status === 404 || err.code === 'capability_unavailable')) return err.message;
    throw err;
  }
}

const ms = (v: number) => (Number.isNaN(v) ? '-' : String(Math.round(v)));
const meanOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function printReport(results: TaskResult[], s: SuiteSummary): void {
  console.log(
    table(
      results.map((r) => ({
        task: r.id,
        kind: r.kind,
        acts: r.acts ?? '-',
        ok: r.ok ? 'yes' : 'no',
        outcome: r.outcome ?? '-',
        steps: r.steps,
        s: r.seconds.toFixed(0),
        'model ms/step': ms(meanOf(r.modelMs)),
        'ours ms/step': ms(meanOf(r.overheadMs)),
        'tokens in/out': `${r.tokens.input}/${r.tokens.output}`,
        why: (r.reason && !r.ok ? `${r.why}; ${r.reason}` : r.why).slice(0, 70),
      })),
    ),
  );
  const pct = (v: number) => `${(v * 100).toFixed(0)}%`;
  console.log(`\nsucceeded ${s.succeeded}/${s.tasks} (${pct(s.successRate)}), ${s.timedOut} timed out`);
  console.log(
    `by kind: ${Object.entries(s.byKind)
      .map(([kind, k]) => `${kind} ${k.succeeded}/${k.tasks}`)
      .join(', ')}`,
  );
  const { single, multi } = s.byActs;
  if (single.tasks + multi.tasks > 0) {
    const acts = (k: typeof single) =>
      `${k.succeeded}/${k.tasks} (${k.successRate === null ? '-' : pct(k.successRate)})`;
    console.log(`simple tasks: single act ${acts(single)}, multi act ${acts(multi)}`);
  }
  const show = (v: number) => (Number.isNaN(v) ? '-' : String(v));
  const spread = (x: { mean: number; p50: number; p99: number }) =>
    `mean ${show(x.mean)}, p50 ${show(x.p50)}, p99 ${show(x.p99)}`;
  console.log(`steps per task: ${spread(s.stepsPerTask)}; seconds per task: ${spread(s.secondsPerTask)}`);
  console.log(
    `per step (${s.stepsTimed} of ${s.steps} steps timed), model ms: ${spread(s.modelMsPerStep)}; ours ms: ${spread(s.overheadMsPerStep)}`,
  );
  console.log(
    `model tokens per step: generated ${spread(s.generatedTokensPerStep)}; evaluated after the first ${spread(s.evaluatedTokensPerStep)}; queue ms ${spread(s.queueMsPerStep)}`,
  );
  console.log(`our share of step time: ${Number.isNaN(s.overheadShare) ? '-' : pct(s.overheadShare)}`);
  console.log(
    `tokens: ${s.tokens.input} in, ${s.tokens.output} out (per task ${s.tokens.inputPerTask} in, ${s.tokens.outputPerTask} out)`,
  );
}

async function main() {
  if (SEEDS.length === 0 || !SEEDS.every((s) => Number.isSafeInteger(s) && s >= 0))
    throw new Error(`AGENT_BENCH_SEEDS is not a list of whole numbers: ${process.env.AGENT_BENCH_SEEDS}`);
  const tasks = tasksOfSeeds(SEEDS);
  const chosen = ONLY.length
    ? tasks.filter((t) => ONLY.includes(t.id) || ONLY.includes(t.kind) || (t.acts && ONLY.includes(t.acts)))
    : tasks;
  if (chosen.length === 0) throw new Error(`AGENT_BENCH_TASKS matches no task: ${ONLY.join(', ')}`);
  const site = await startTaskSite();
  const fleet = await startBenchFleet({
    env: {
      LOG_LEVEL: 'warn',
      EGRESS_ALLOW: '127.0.0.0/8',
      ...agentSettings(),
      // The bench measures lab arms: every workspace of its fleet may ask for one.
      ...(PROFILE &&
        !['full', 'compact'].includes(PROFILE) && { AGENT_LAB_ARMS: JSON.stringify({ [PROFILE]: ['*'] }) }),
      ...JSON.parse(process.env.BENCH_FLEET_ENV ?? '{}'),
    },
  });
  try {
    const { apiKey } = await fleet.workspace('scale');
    const api = agentApi(fleet.gatewayUrl, apiKey);
    const probe = { task: 'Tell me the title of this page.', url: site.attempt().url('/recipes') };
    const notServed = await served(api, probe);
    if (notServed) {
      console.log(`\nagent runs are not served by this fleet, nothing to measure: ${notServed}`);
      console.log(JSON.stringify({ bench: 'agent', skipped: notServed }));
      return;
    }
    console.log(
      `\n${chosen.length} agent tasks, ${CONCURRENCY} at a time, model ${MODEL ?? "the fleet's default"}${PROFILE ? ` (${PROFILE})` : ''}, ` +
        `${MAX_STEPS ?? 'default'} steps at most, ${TIMEOUT_MS / 1000} s timeout\n`,
    );
    const started = performance.now();
    const results = await runSuite(
      api,
      site,
      chosen,
      { concurrency: CONCURRENCY, model: MODEL, maxSteps: MAX_STEPS, stepProfile: PROFILE, timeoutMs: TIMEOUT_MS },
      (r) => {
        console.log(`  ${r.ok ? 'ok  ' : 'FAIL'} ${r.id} (${r.steps} steps, ${r.seconds.toFixed(0)} s): ${r.why}`);
        if (!r.ok) for (const line of r.trail.slice(-8)) console.log(`         ${line.slice(0, 160)}`);
      },
    );
    const wallSeconds = Math.round((performance.now() - started) / 1000);
    const summary = summarize(results);
    console.log('');
    printReport(results, summary);

    const latency = await submitLatency(api, probe, SUBMITS);
    console.log(
      `\nPOST /v1/agent, ${SUBMITS} at once (each run cancelled once accepted): p50 ${latency.p50} ms, p99 ${latency.p99} ms, ` +
        `max ${latency.max} ms; accepted ${latency.accepted}${Object.keys(latency.refused).length ? `, refused ${JSON.stringify(latency.refused)}` : ''}`,
    );
    const report = {
      bench: 'agent',
      model: MODEL ?? null,
      stepProfile: PROFILE ?? null,
      concurrency: CONCURRENCY,
      maxSteps: MAX_STEPS ?? null,
      seeds: SEEDS,
      wallSeconds,
      ...summary,
      submitLatencyMs: latency,
      results: results.map((r) => ({
        id: r.id,
        kind: r.kind,
        acts: r.acts ?? null,
        ok: r.ok,
        outcome: r.outcome,
        steps: r.steps,
        seconds: Math.round(r.seconds),
        why: r.why,
      })),
    };
    if (process.env.AGENT_BENCH_REPORT)
      writeFileSync(process.env.AGENT_BENCH_REPORT, `${JSON.stringify({ ...report, results }, null, 2)}\n`);
    console.log(JSON.stringify(report));
    // The suite's failures are the figure; the API failing to take a run is the bench failing.
    if (results.some((r) => r.runId === null) || latency.accepted < SUBMITS) process.exitCode = 1;
  } finally {
    await fleet.stop();
    await fleet.dropDatabases();
    await site.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
