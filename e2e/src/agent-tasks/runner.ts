// Runs the suite's tasks through the public agent API (POST /v1/agent, then
// GET /v1/agent/{id} until settled, then its events), checks each against
// what the site recorded, and sums the figures up. The bench drives it
// against a fleet; runner.test.ts against a scripted stand-in of the API.
import { call } from '../api.js';
import type { Attempt, TaskSite } from './site.js';
import type { Acts, AgentTask } from './task.js';

/** A run as GET /v1/agent/{id} answers it (the fields the bench reads). */
export interface AgentRun {
  id: string;
  status: 'queued' | 'running' | 'paused' | 'settled';
  outcome: 'completed' | 'failed' | 'cancelled' | null;
  pausedFor: 'question' | 'control' | null;
  question: string | null;
  answer: unknown;
  reason: { code: string; message: string } | null;
  steps: number;
  tokens: { input: number; output: number };
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface AgentEvent {
  seq: number;
  kind: string;
  message: string;
  data: Record<string, unknown> | null;
}

export interface SubmitBody {
  task: string;
  url?: string;
  outputSchema?: Record<string, unknown>;
  model?: string;
  maxSteps?: number;
  maxCredits?: number;
  stepProfile?: string;
}

/** What an API call that did not answer as documented said: its status and body. */
export class ApiFailure extends Error {
  constructor(
    readonly what: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`${what} answered ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  }

  /** The error code of the body (`not_found`, `capability_unavailable`...), if it has one. */
  get code(): string | undefined {
    return (this.body as { code?: string } | null)?.code;
  }
}

export interface AgentApi {
  submit(body: SubmitBody): Promise<AgentRun>;
  get(id: string): Promise<AgentRun>;
  /** The events after `after` at level debug, a page of them; `next` is the `after` of the next page. */
  events(id: string, after: number): Promise<{ events: AgentEvent[]; next: number }>;
  cancel(id: string): Promise<void>;
}

/** The agent API of a gateway, as a user with `apiKey` calls it. */
export function agentApi(gatewayUrl: string, apiKey: string): AgentApi {
  const ask = async <T>(what: string, method: string, path: string, expect: number, body?: unknown) => {
    const res = await call<T>(gatewayUrl, method, path, { key: apiKey, body, timeoutMs: 60_000 });
    if (res.status !== expect) throw new ApiFailure(what, res.status, res.body);
    return res.body;
  };
  return {
    submit: async (body) => (await ask<{ run: AgentRun }>('POST /v1/agent', 'POST', '/v1/agent', 202, body)).run,
    get: async (id) => (await ask<{ run: AgentRun }>('GET /v1/agent/{id}', 'GET', `/v1/agent/${id}`, 200)).run,
    events: (id, after) =>
      ask('GET /v1/agent/{id}/events', 'GET', `/v1/agent/${id}/events?level=debug&limit=500&after=${after}`, 200),
    cancel: async (id) => {
      await ask('POST /v1/agent/{id}/cancel', 'POST', `/v1/agent/${id}/cancel`, 200);
    },
  };
}

export interface RunOptions {
  /** The model runs name; the fleet's default when unset. */
  model?: string;
  maxSteps?: number;
  /** The step profile or lab arm the runs ask for; the model's own when unset. */
  stepProfile?: string;
  /** A run not settled this long after its submit is cancelled and counts as failed. */
  timeoutMs: number;
  /** How often a run is polled. */
  pollMs?: number;
}

export interface TaskResult {
  id: string;
  kind: string;
  /** The task's AgentTask.acts, where it has one. */
  acts?: Acts;
  runId: string | null;
  /** The check passed and the run settled in time. */
  ok: boolean;
  why: string;
  outcome: AgentRun['outcome'];
  reason: string | null;
  timedOut: boolean;
  steps: number;
  /** From the submit to the run settled: what the user waited. */
  seconds: number;
  /** Model time and our own time (page reading, actions, bookkeeping) of each step, from the step timings. */
  modelMs: number[];
  overheadMs: number[];
  generatedTokens: number[];
  evaluatedTokens: number[];
  queueMs: number[];
  tokens: { input: number; output: number };
  /** What each step did, in the run's own words (its step, dead-end and done-check events): why a task failed. */
  trail: string[];
}

const TRAIL_KINDS = new Set(['step', 'dead_end', 'done_check']);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every event of a run, page after page. */
export async function allEvents(api: AgentApi, id: string): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for (let after = 0; ; ) {
    const page = await api.events(id, after);
    events.push(...page.events);
    if (page.events.length === 0 || page.next <= after) return events;
    after = page.next;
  }
}

/** What the model and we did each step, from the run's events (docs/agent.md, "Events"). */
export interface StepFigures {
  /** The step's timing events: the model's time and ours. */
  modelMs: number[];
  overheadMs: number[];
  /** Tokens the model generated for each step's action (its step event; a done check apart). */
  generatedTokens: number[];
  /** Prompt tokens the model evaluated for each step after the run's first (the rest were cached). */
  evaluatedTokens: number[];
  /** Time each step waited for its turn on a shared model. */
  queueMs: number[];
}

const numberOf = (e: AgentEvent, key: string): number | undefined =>
  typeof e.data?.[key] === 'number' ? (e.data[key] as number) : undefined;

export function stepTimes(events: AgentEvent[]): StepFigures {
  const timed = events.filter((e) => numberOf(e, 'modelMs') !== undefined && numberOf(e, 'overheadMs') !== undefined);
  const all = (list: AgentEvent[], key: string) =>
    list.map((e) => numberOf(e, key)).filter((v): v is number => v !== undefined);
  return {
    modelMs: all(timed, 'modelMs'),
    overheadMs: all(timed, 'overheadMs'),
    generatedTokens: all(
      events.filter((e) => e.kind === 'step'),
      'outputTokens',
    ),
    evaluatedTokens: all(timed.slice(1), 'evaluatedInputTokens'),
    queueMs: all(timed, 'queueMs'),
  };
}

/** Submits `task` on a fresh attempt of `site`, polls its run until settled (or cancels it), and checks it. */
export async function runTask(
  api: AgentApi,
  site: TaskSite,
  task: AgentTask,
  options: RunOptions,
): Promise<TaskResult> {
  const attempt: Attempt = site.attempt();
  const started = performance.now();
  const base = {
    ...{ id: task.id, kind: task.kind, ...(task.acts && { acts: task.acts }) },
    ...{ tokens: { input: 0, output: 0 }, trail: [] },
    ...{ modelMs: [], overheadMs: [], generatedTokens: [], evaluatedTokens: [], queueMs: [] },
  };
  let run: AgentRun;
  try {
    run = await api.submit({
      task: task.task,
      url: attempt.url(task.path),
      ...(task.outputSchema && { outputSchema: task.outputSchema }),
      ...(options.model && { model: options.model }),
      ...(options.maxSteps && { maxSteps: options.maxSteps }),
      ...(options.stepProfile && { stepProfile: options.stepProfile }),
    });
  } catch (err) {
    const why = `submit failed: ${(err as Error).message}`;
    return { ...base, runId: null, ok: false, why, outcome: null, reason: null, timedOut: false, steps: 0, seconds: 0 };
  }
  const deadline = Date.now() + options.timeoutMs;
  let timedOut = false;
  let paused: string | null = null;
  while (run.status !== 'settled') {
    if (Date.now() >= deadline || run.status === 'paused') {
      // Every task says all it needs: a run that stops to ask, or outlasts the timeout, has failed it.
      if (run.status === 'paused') paused = `paused for ${run.pausedFor}: ${run.question ?? ''}`;
      else timedOut = true;
      await api.cancel(run.id).catch(() => undefined);
      run = await settle(api, run.id, options.pollMs);
      break;
    }
    await sleep(options.pollMs ?? 1_000);
    run = await api.get(run.id);
  }
  const seconds = (performance.now() - started) / 1000;
  const events = await allEvents(api, run.id).catch(() => []);
  const times = stepTimes(events);
  const trail = events.filter((e) => TRAIL_KINDS.has(e.kind)).map((e) => e.message);
  const verdict = task.check({ records: attempt.records, answer: run.answer ?? null });
  const why = timedOut ? `timed out (${verdict.why})` : paused ? `${paused} (${verdict.why})` : verdict.why;
  return {
    ...base,
    ...times,
    trail,
    runId: run.id,
    ok: verdict.ok && !timedOut && !paused,
    why,
    outcome: run.outcome,
    reason: run.reason ? `${run.reason.code}: ${run.reason.message}` : null,
    timedOut,
    steps: run.steps,
    seconds,
    tokens: run.tokens ?? base.tokens,
  };
}

/** A cancelled run, once it has settled (a run mid-step finishes the step first). */
async function settle(api: AgentApi, id: string, pollMs = 1_000): Promise<AgentRun> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const run = await api.get(id);
    if (run.status === 'settled' || Date.now() >= deadline) return run;
    await sleep(pollMs);
  }
}

/** Runs `tasks`, `concurrency` at a time; `onResult` sees each as it ends. Results in the tasks' order. */
export async function runSuite(
  api: AgentApi,
  site: TaskSite,
  tasks: AgentTask[],
  options: RunOptions & { concurrency: number },
  onResult: (result: TaskResult) => void = () => {},
): Promise<TaskResult[]> {
  const results: TaskResult[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(options.concurrency, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++;
        const result = await runTask(api, site, tasks[i] as AgentTask, options);
        results[i] = result;
        onResult(result);
      }
    }),
  );
  return results;
}

export interface SubmitLatency {
  submits: number;
  accepted: number;
  p50: number;
  p99: number;
  max: number;
  /** Answers other than 202, by status or by error. */
  refused: Record<string, number>;
}

/** `n` submits of `task` at once: each one's latency; every accepted run is cancelled as soon as its answer comes. */
export async function submitLatency(api: AgentApi, body: SubmitBody, n: number): Promise<SubmitLatency> {
  const latencies: number[] = [];
  const refused: Record<string, number> = {};
  const cancels: Promise<unknown>[] = [];
  await Promise.all(
    Array.from({ length: n }, async () => {
      const t0 = performance.now();
      try {
        const run = await api.submit(body);
        latencies.push(performance.now() - t0);
        cancels.push(api.cancel(run.id).catch(() => undefined));
      } catch (err) {
        const key = err instanceof ApiFailure ? `${err.status} ${err.code ?? ''}`.trim() : (err as Error).message;
        refused[key] = (refused[key] ?? 0) + 1;
      }
    }),
  );
  await Promise.all(cancels);
  const sorted = latencies.toSorted((a, b) => a - b);
  return {
    submits: n,
    accepted: sorted.length,
    p50: round(percentile(sorted, 0.5)),
    p99: round(percentile(sorted, 0.99)),
    max: round(sorted.at(-1) ?? Number.NaN),
    refused,
  };
}

/** The nearest-rank percentile of sorted numbers (NaN when there are none). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number;
}

const round = (v: number, digits = 1) => Number(v.toFixed(digits));
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);
const spread = (xs: number[]) => {
  const sorted = xs.toSorted((a, b) => a - b);
  return { mean: round(mean(xs)), p50: round(percentile(sorted, 0.5)), p99: round(percentile(sorted, 0.99)) };
};

/** How the tasks of one number of acts went; the rate is null when there were none. */
export interface ActsFigures {
  tasks: number;
  succeeded: number;
  successRate: number | null;
}

export interface SuiteSummary {
  tasks: number;
  succeeded: number;
  successRate: number;
  timedOut: number;
  byKind: Record<string, { tasks: number; succeeded: number }>;
  /** The tasks that say how many acts they take (AgentTask.acts), single and multi apart; the others in neither. */
  byActs: Record<Acts, ActsFigures>;
  stepsPerTask: { mean: number; p50: number; p99: number };
  /** Steps in all, and how many of them the events timed (the per-step figures are over these). */
  steps: number;
  stepsTimed: number;
  secondsPerTask: { mean: number; p50: number; p99: number };
  /** Per step, over every step of every run. */
  modelMsPerStep: { mean: number; p50: number; p99: number };
  overheadMsPerStep: { mean: number; p50: number; p99: number };
  /** The model's tokens per step: generated for the action; evaluated after a run's first step (not cached). */
  generatedTokensPerStep: { mean: number; p50: number; p99: number };
  evaluatedTokensPerStep: { mean: number; p50: number; p99: number };
  /** Waiting for a turn on a shared model, per step (only models that say). */
  queueMsPerStep: { mean: number; p50: number; p99: number };
  /** Our share of a step's time: overhead / (model + overhead), over all steps. */
  overheadShare: number;
  tokens: { input: number; output: number; inputPerTask: number; outputPerTask: number };
}

export function summarize(results: TaskResult[]): SuiteSummary {
  const byKind: SuiteSummary['byKind'] = {};
  for (const r of results) {
    const k = byKind[r.kind] ?? { tasks: 0, succeeded: 0 };
    k.tasks++;
    if (r.ok) k.succeeded++;
    byKind[r.kind] = k;
  }
  const succeeded = results.filter((r) => r.ok).length;
  const ofActs = (acts: Acts): ActsFigures => {
    const these = results.filter((r) => r.acts === acts);
    const ok = these.filter((r) => r.ok).length;
    return { tasks: these.length, succeeded: ok, successRate: these.length ? round(ok / these.length, 3) : null };
  };
  const modelMs = results.flatMap((r) => r.modelMs);
  const overheadMs = results.flatMap((r) => r.overheadMs);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const input = sum(results.map((r) => r.tokens.input));
  const output = sum(results.map((r) => r.tokens.output));
  return {
    tasks: results.length,
    succeeded,
    successRate: round(results.length ? succeeded / results.length : 0, 3),
    timedOut: results.filter((r) => r.timedOut).length,
    byKind,
    byActs: { single: ofActs('single'), multi: ofActs('multi') },
    stepsPerTask: spread(results.map((r) => r.steps)),
    steps: sum(results.map((r) => r.steps)),
    stepsTimed: modelMs.length,
    secondsPerTask: spread(results.map((r) => r.seconds)),
    modelMsPerStep: spread(modelMs),
    overheadMsPerStep: spread(overheadMs),
    generatedTokensPerStep: spread(results.flatMap((r) => r.generatedTokens)),
    evaluatedTokensPerStep: spread(results.flatMap((r) => r.evaluatedTokens)),
    queueMsPerStep: spread(results.flatMap((r) => r.queueMs)),
    overheadShare: round(sum(overheadMs) / (sum(modelMs) + sum(overheadMs)), 3),
    tokens: {
      input,
      output,
      inputPerTask: Math.round(input / Math.max(1, results.length)),
      outputPerTask: Math.round(output / Math.max(1, results.length)),
    },
  };
}
