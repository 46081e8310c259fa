// Our own time per agent step, with the model out of the way, and how fast
// POST /v1/agent answers. A loopback model that answers at once (a "walker":
// it types into the first empty field, clicks the next button or link it has
// not clicked, or scrolls, reading the element list it is sent) drives runs
// over the agent task site, so every step's time is the fleet's: reading the
// page, running the actions in Chromium, the database, the ledger and the
// events. The split comes from each step's timing event.
//
// Settings (environment):
//   AGENT_STEPS_RUNS       runs, one at a time, each on another task's start page (6)
//   AGENT_STEPS_MAX_STEPS  steps per run (12)
//   AGENT_STEPS_SUBMITS    submits at once for the burst figure (50)
import { startBenchFleet } from '@wap/testkit';
import { type ModelRequest, startFakeOpenAi } from '@wap/testsite';
import { startTaskSite, tasks } from '../agent-tasks/index.js';
import { type AgentEvent, agentApi, allEvents, percentile, submitLatency } from '../agent-tasks/runner.js';
import { cpuMeter, formatCpu } from './cpu.js';

const RUNS = Number(process.env.AGENT_STEPS_RUNS ?? 6);
const MAX_STEPS = Number(process.env.AGENT_STEPS_MAX_STEPS ?? 12);
const SUBMITS = Number(process.env.AGENT_STEPS_SUBMITS ?? 50);

const promptOf = (request: ModelRequest): string =>
  (request.body?.messages ?? [])
    .filter((m: { role: string }) => m.role === 'user')
    .map((m: { content: unknown }) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');

/** The walker: one action a step, chosen from the element list so that pages change as a user's would. */
function walker() {
  const touched = new Map<string, Set<string>>();
  return (request: ModelRequest) => {
    const prompt = promptOf(request);
    const task = /^Task: (.*)$/m.exec(prompt)?.[1] ?? '';
    const seen = touched.get(task) ?? new Set<string>();
    touched.set(task, seen);
    const lines = prompt.split('\n').filter((line) => /^\s*\*?\[\d+\]/.test(line));
    const index = (line: string) => Number(/\[(\d+)\]/.exec(line)?.[1]);
    const fresh = (line: string) => !seen.has(line.replace(/^\s*\*?\[\d+\]/, ''));
    const field = lines.find((l) => /<input(?![^>]*type=(checkbox|radio|submit|button|hidden))/.test(l) && fresh(l));
    const target = lines.find((l) => /<(button|a)\b/.test(l) && fresh(l));
    const pick = field ?? target;
    let action: Record<string, unknown> = { action: 'scroll', direction: 'down' };
    if (pick) {
      seen.add(pick.replace(/^\s*\*?\[\d+\]/, ''));
      action =
        pick === field
          ? { action: 'type', index: index(pick), text: 'walker', submit: false }
          : { action: 'click', index: index(pick) };
    }
    return { evaluation: '', memory: '', plan: ['walk the site'], actions: [action] };
  };
}

const round = (v: number) => Math.round(v * 10) / 10;
function spread(xs: number[]) {
  const sorted = xs.toSorted((a, b) => a - b);
  const mean = xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
  return { mean: round(mean), p50: round(percentile(sorted, 0.5)), p99: round(percentile(sorted, 0.99)) };
}

async function main() {
  const site = await startTaskSite();
  const model = await startFakeOpenAi({ reply: walker() });
  const fleet = await startBenchFleet({
    env: {
      LOG_LEVEL: 'warn',
      EGRESS_ALLOW: '127.0.0.0/8',
      AGENT_MODELS: JSON.stringify([{ name: 'walker', kind: 'openai', baseUrl: model.url, model: 'walker-1' }]),
      AGENT_DEFAULT_MODEL: 'walker',
      ...JSON.parse(process.env.BENCH_FLEET_ENV ?? '{}'),
    },
  });
  try {
    const { apiKey } = await fleet.workspace('scale');
    const api = agentApi(fleet.gatewayUrl, apiKey);
    const timings: Record<string, number>[] = [];
    const chosen = tasks.slice(0, RUNS);
    for (const task of chosen) {
      let run = await api.submit({ task: task.task, url: site.attempt().url(task.path), maxSteps: MAX_STEPS });
      while (run.status !== 'settled') {
        await new Promise((r) => setTimeout(r, 200));
        run = await api.get(run.id);
      }
      const events: AgentEvent[] = await allEvents(api, run.id);
      for (const e of events) if (e.kind === 'timing' && e.data) timings.push(e.data as Record<string, number>);
    }
    const parts = ['overheadMs', 'observeMs', 'actMs', 'bookkeepingMs'] as const;
    const split = Object.fromEntries(parts.map((p) => [p, spread(timings.map((t) => t[p] ?? 0))]));
    console.log(
      `\n${chosen.length} runs of ${MAX_STEPS} steps with a model that answers at once: ${timings.length} steps`,
    );
    console.log('our ms per step (mean / p50 / p99):');
    for (const p of parts) console.log(`  ${p.padEnd(14)} ${split[p]?.mean} / ${split[p]?.p50} / ${split[p]?.p99}`);

    // One submit at a time, then a burst; every run is cancelled as soon as it is accepted.
    const probe = { task: 'Tell me the title of this page.', url: site.attempt().url('/recipes') };
    const single: number[] = [];
    for (let i = 0; i < 30; i++) {
      const one = await submitLatency(api, probe, 1);
      single.push(one.p50);
    }
    const alone = spread(single);
    // The same hops with no work behind them: a read of a run, as the floor a submit stands on.
    const reads: number[] = [];
    const read = await api.submit(probe);
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      await api.get(read.id);
      reads.push(performance.now() - t0);
    }
    await api.cancel(read.id);
    const floor = spread(reads);
    const meter = cpuMeter();
    const burst = await submitLatency(api, probe, SUBMITS);
    const burstCpu = meter();
    console.log(`\nPOST /v1/agent one at a time (30): p50 ${alone.p50} ms, p99 ${alone.p99} ms`);
    console.log(`GET /v1/agent/{id} one at a time (30): p50 ${floor.p50} ms, p99 ${floor.p99} ms`);
    console.log(
      `POST /v1/agent, ${SUBMITS} at once: p50 ${burst.p50} ms, p99 ${burst.p99} ms, max ${burst.max} ms; accepted ${burst.accepted}`,
    );
    // The submits, their cancels and the runs they woke: the burst's CPU by process, per submit.
    console.log(`CPU during the burst: ${formatCpu(burstCpu)}`);
    console.log(
      JSON.stringify({
        bench: 'agent-steps',
        runs: chosen.length,
        steps: timings.length,
        perStepMs: split,
        submitAloneMs: alone,
        readAloneMs: floor,
        submitBurstMs: burst,
        burstCpuMsPerSubmit: Object.fromEntries(
          Object.entries(burstCpu).map(([k, v]) => [k, Math.round((v * 1000 * 10) / SUBMITS) / 10]),
        ),
      }),
    );
    if (burst.accepted < SUBMITS || timings.length === 0) process.exitCode = 1;
  } finally {
    await fleet.stop();
    await fleet.dropDatabases();
    await model.close();
    await site.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
