// How a run reads back: every RPC that answers a run answers this view, read
// from the row alone (polling never calls the ledger, never changes the spend).
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { METERS, type MeterName, priceMeter } from '@wap/billing';
import { agent, ledger } from '@wap/proto';
import type { ListedRun, RunRow } from '../store/runs.js';

const METER_ENUM: Record<MeterName, ledger.Meter> = {
  context_seconds: ledger.Meter.CONTEXT_SECONDS,
  page_load: ledger.Meter.PAGE_LOAD,
  search_result: ledger.Meter.SEARCH_RESULT,
  agent_seconds: ledger.Meter.AGENT_SECONDS,
  monitor_change: ledger.Meter.MONITOR_CHANGE,
  proxy_bytes: ledger.Meter.PROXY_BYTES,
  bytes_egress: ledger.Meter.BYTES_EGRESS,
  tokens: ledger.Meter.TOKENS,
};

/** What a run has cost so far, per meter, from what the row says is billed. */
function usageOf(row: Pick<RunRow, 'billed' | 'chargedMc'>) {
  const billed = (row.billed ?? {}) as Partial<Record<MeterName, string>>;
  const meters = METERS.filter((m) => billed[m] && BigInt(billed[m] as string) > 0n).map((m) => {
    const quantity = BigInt(billed[m] as string);
    return { meter: METER_ENUM[m], quantity, millicredits: priceMeter(m, quantity) };
  });
  return { meters, millicredits: row.chargedMc };
}

/** Where a run stands: an outcome only once settled, what it waits for only while paused. */
function stateOf(row: Pick<RunRow, 'status' | 'outcome' | 'pausedFor' | 'reasonCode' | 'reasonMessage'>) {
  return {
    status: row.status,
    outcome: row.status === 'settled' ? (row.outcome ?? '') : '',
    pausedFor: row.status === 'paused' ? (row.pausedFor ?? '') : '',
    ...(row.reasonCode && { reason: { code: row.reasonCode, message: row.reasonMessage ?? '' } }),
  };
}

export function toRun(row: RunRow, files: { handle: string; name: string; mimeType: string; size: number }[] = []) {
  return create(agent.RunSchema, {
    id: row.id,
    ...stateOf(row),
    question: row.status === 'paused' && row.pausedFor !== 'control' ? (row.question ?? '') : '',
    answerJson: row.answer === null || row.answer === undefined ? '' : JSON.stringify(row.answer),
    task: row.task,
    startUrl: row.startUrl ?? '',
    profileId: row.profileId ?? '',
    plan: Array.isArray(row.plan) ? (row.plan as unknown[]).map(String) : [],
    sessionId: row.sessionId ?? '',
    steps: row.steps,
    maxSteps: row.maxSteps,
    maxCredits: row.maxCredits,
    model: row.model,
    stepProfile: row.stepProfile ?? '',
    usage: usageOf(row),
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    createdAt: timestampFromDate(row.createdAt),
    ...(row.startedAt && { startedAt: timestampFromDate(row.startedAt) }),
    ...(row.finishedAt && { finishedAt: timestampFromDate(row.finishedAt) }),
    files: files.map((f) => ({ handle: f.handle, name: f.name, mimeType: f.mimeType, size: BigInt(f.size) })),
  });
}

/** A run as ListRuns shows it: the same fields as `toRun`, fewer of them. */
export function toRunSummary(row: ListedRun) {
  return create(agent.RunSummarySchema, {
    id: row.id,
    ...stateOf(row),
    task: row.task,
    model: row.model,
    sessionId: row.sessionId ?? '',
    steps: row.steps,
    usage: usageOf(row),
    createdAt: timestampFromDate(row.createdAt),
    ...(row.startedAt && { startedAt: timestampFromDate(row.startedAt) }),
    ...(row.finishedAt && { finishedAt: timestampFromDate(row.finishedAt) }),
  });
}
