import { setTimeout as sleep } from 'node:timers/promises';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ApiError } from '@wap/errors';
import { agent } from '@wap/proto';
import type { AgentRpcDeps } from './deps.js';
import { invalid, runRef } from './parse.js';

/** Each level shows its own events and those of the levels above it (docs/agent.md, "Events"). */
export const LEVELS = { summary: ['summary'], step: ['summary', 'step'], debug: ['summary', 'step', 'debug'] };
const MAX_WAIT_MS = 30_000;
/** How often a long poll looks for a new row. */
const LOOK_MS = 200;

/**
 * agent.ListEvents: the run's event rows after `after`, at a level, oldest
 * first. With `wait_ms` and nothing new yet, it looks again until an event
 * comes, the run settles, or the wait ends (a long poll; the gateway streams it as SSE).
 */
export function listEvents({ store }: AgentRpcDeps) {
  return async (req: agent.ListEventsRequest, ctx?: { signal?: AbortSignal }): Promise<agent.ListEventsResponse> => {
    const ref = runRef(req);
    const level = (req.level || 'step') as keyof typeof LEVELS;
    if (!(level in LEVELS)) invalid('level', 'summary, step or debug');
    if (req.after < 0n) invalid('after', 'must be 0 or more');
    const limit = req.limit > 0 ? Math.min(req.limit, 500) : 100;
    const waitMs = Math.min(Math.max(req.waitMs, 0), MAX_WAIT_MS);
    const deadline = Date.now() + waitMs;
    for (;;) {
      const row = await store.get(ref.workspaceId, ref.runId);
      if (!row) throw new ApiError('not_found');
      const events = await store.events(row.id, LEVELS[level], req.after, limit);
      const done = row.status === 'settled';
      if (events.length > 0 || done || Date.now() >= deadline || ctx?.signal?.aborted) {
        return create(agent.ListEventsResponseSchema, {
          events: events.map((e) => ({
            seq: e.seq,
            at: timestampFromDate(e.at),
            level: e.level,
            kind: e.kind,
            message: e.message,
            dataJson: e.data === null ? '' : JSON.stringify(e.data),
          })),
          next: events.at(-1)?.seq ?? req.after,
          status: row.status,
        });
      }
      await sleep(LOOK_MS, undefined, { signal: ctx?.signal }).catch(() => undefined);
    }
  };
}
