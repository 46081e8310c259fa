import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '@wap/errors';
import type { agent } from '@wap/proto';
import { toRun } from '../views/run.js';
import type { AgentRpcDeps } from './deps.js';
import { runRef } from './parse.js';

/** How long a cancel waits for the run's loop to settle it before answering the run as it stands. */
const SETTLE_WAIT_MS = 10_000;

/**
 * agent.CancelRun: a queued run is settled here; a live one is asked to stop
 * and its loop settles it (billing what was done) within a moment, which the
 * answer waits for. Cancelling a settled run changes nothing.
 */
export function cancelRun({ store, wake }: AgentRpcDeps) {
  return async (req: agent.CancelRunRequest, ctx?: { signal?: AbortSignal }): Promise<agent.CancelRunResponse> => {
    const ref = runRef(req);
    let row = await store.cancel(ref.workspaceId, ref.runId);
    if (!row) throw new ApiError('not_found');
    if (row.status !== 'settled') {
      wake(row.id);
      const deadline = Date.now() + SETTLE_WAIT_MS;
      while (row && row.status !== 'settled' && Date.now() < deadline && !ctx?.signal?.aborted) {
        await sleep(100);
        row = await store.get(ref.workspaceId, ref.runId);
      }
    }
    if (!row) throw new ApiError('not_found');
    return { $typeName: 'wap.agent.v1.CancelRunResponse', run: toRun(row, await store.files(row.id)) };
  };
}
