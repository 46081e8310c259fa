// An agent run as the agent routes answer it: the whole run (GET /v1/agent/{id}, and the
// answers of the routes that change it), its summary in a listing, and a file it holds.
import type { agent } from '@wap/proto';
import { z } from 'zod';
import { isoTime, toUsageObject, usageObject } from '../usage-shape.js';

export const runStatus = z
  .enum(['queued', 'running', 'paused', 'settled'])
  .describe(
    '`queued`: waiting for a replica and a browser; `running`; `paused`: waiting for an answer (`pausedFor: question`), for a person to approve a purchase or an action a rule gates (`pausedFor: approval`), or driven by a person (`pausedFor: control`), unbilled; `settled`: final, see `outcome`.',
  );

export const fileObject = z.object({
  handle: z.string().describe('What the run names the file by (its `attach_file` action).'),
  name: z.string(),
  mimeType: z.string(),
  size: z.number().int(),
});

export const runObject = z.object({
  id: z.string(),
  status: runStatus,
  outcome: z
    .enum(['completed', 'failed', 'cancelled'])
    .nullable()
    .describe('How a settled run ended; null before. `failed` carries its `reason`.'),
  pausedFor: z.enum(['question', 'approval', 'control']).nullable(),
  question: z.string().nullable().describe('The question a paused run asks (POST /v1/agent/{id}/answer).'),
  answer: z.unknown().nullable().describe('The answer, once the run has one: in `outputSchema` when one was given.'),
  reason: z
    .object({ code: z.string(), message: z.string() })
    .nullable()
    .describe('Why a run failed or was cancelled (docs/agent.md lists the codes).'),
  task: z.string(),
  url: z.string().nullable(),
  profile: z.string().nullable(),
  plan: z.array(z.string()).describe('The plan the run stated last.'),
  sessionId: z
    .string()
    .nullable()
    .describe("The run's browser session: its replay and network log (GET /v1/sessions/{id})."),
  steps: z.number().int(),
  maxSteps: z.number().int(),
  maxCredits: z.number().int(),
  model: z.string(),
  stepProfile: z
    .string()
    .nullable()
    .describe("The step profile or lab arm the run asked for (`stepProfile`); null: its model's own."),
  usage: usageObject.describe('What the run has cost so far; reading it never adds to it.'),
  tokens: z.object({ input: z.number().int(), output: z.number().int() }).describe('Model tokens (priced at zero).'),
  files: z.array(fileObject).describe('Files the run holds now; destroyed when it ends.'),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});

function parseAnswer(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A run as GET /v1/agent lists it: the run object's fields that say where it stands and what it cost. */
const run = runObject.shape;
export const runSummaryObject = z.object({
  id: run.id,
  status: run.status,
  outcome: run.outcome,
  pausedFor: run.pausedFor,
  reason: run.reason,
  task: z.string().describe('The first 200 characters of the task (GET /v1/agent/{id} has all of it).'),
  sessionId: run.sessionId,
  steps: run.steps,
  model: run.model,
  usage: run.usage,
  createdAt: run.createdAt,
  startedAt: run.startedAt,
  finishedAt: run.finishedAt,
});

/** The fields a run and its summary share, as JSON (a summary's task is cut short by the service). */
export function toRunSummaryJson(r: agent.Run | agent.RunSummary | undefined) {
  return {
    id: r?.id ?? '',
    status: (r?.status || 'queued') as z.infer<typeof runStatus>,
    outcome: (r?.outcome || null) as 'completed' | 'failed' | 'cancelled' | null,
    pausedFor: (r?.pausedFor || null) as 'question' | 'approval' | 'control' | null,
    reason: r?.reason ? { code: r.reason.code, message: r.reason.message } : null,
    task: r?.task ?? '',
    sessionId: r?.sessionId || null,
    steps: r?.steps ?? 0,
    model: r?.model ?? '',
    usage: toUsageObject(r?.usage),
    createdAt: isoTime(r?.createdAt) ?? new Date(0).toISOString(),
    startedAt: isoTime(r?.startedAt),
    finishedAt: isoTime(r?.finishedAt),
  };
}

export function toRunJson(r: agent.Run | undefined) {
  return {
    ...toRunSummaryJson(r),
    question: r?.question || null,
    answer: parseAnswer(r?.answerJson ?? ''),
    url: r?.startUrl || null,
    profile: r?.profileId || null,
    plan: r?.plan ?? [],
    maxSteps: r?.maxSteps ?? 0,
    maxCredits: r?.maxCredits ?? 0,
    stepProfile: r?.stepProfile || null,
    tokens: { input: Number(r?.inputTokens ?? 0n), output: Number(r?.outputTokens ?? 0n) },
    files: (r?.files ?? []).map((f) => ({
      handle: f.handle,
      name: f.name,
      mimeType: f.mimeType,
      size: Number(f.size),
    })),
  };
}
