// Sessions past RECORDING_RETENTION are deleted for good: their rows,
// recordings, network logs and whatever of their chunks the stream still
// holds (docs/sessions.md). Every replica sweeps; the deletes make it safe.
import type { Logger } from '@wap/log';
import { PeriodicJob } from '@wap/service';
import type { SessionPurge } from '../store/purge.js';

export interface RetentionSettings {
  retentionMs: number;
  intervalMs: number;
}

/** At most this many sessions a batch; a round goes on while batches come full, up to ROUND_MAX. */
const BATCH = 100;
const ROUND_MAX = 10_000;

export interface RetentionDeps {
  purge: SessionPurge;
  /** Removes a session's chunks from the stream. */
  purgeChunks: (sessionId: string) => Promise<unknown>;
  log: Logger;
}

/** One round: answers how many sessions it deleted. */
export async function sweepRetention(deps: RetentionDeps, retentionMs: number, now = Date.now()): Promise<number> {
  const cutoff = new Date(now - retentionMs);
  let deleted = 0;
  while (deleted < ROUND_MAX) {
    const ids = await deps.purge.expire(cutoff, BATCH);
    for (const id of ids) await deps.purgeChunks(id);
    deleted += ids.length;
    if (ids.length < BATCH) break;
  }
  if (deleted > 0) deps.log.info({ sessions: deleted, retentionMs }, 'sessions past their retention deleted');
  return deleted;
}

export const retentionJob = (deps: RetentionDeps, { retentionMs, intervalMs }: RetentionSettings) =>
  new PeriodicJob({ name: 'recording retention', intervalMs, log: deps.log, immediately: true }, () =>
    sweepRetention(deps, retentionMs),
  );
