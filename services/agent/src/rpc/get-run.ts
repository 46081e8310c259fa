import { ApiError } from '@wap/errors';
import type { agent } from '@wap/proto';
import { toRun } from '../views/run.js';
import type { AgentRpcDeps } from './deps.js';
import { runRef } from './parse.js';

/** agent.GetRun: a plain read of the row; another workspace's run is not_found. */
export function getRun({ store }: AgentRpcDeps) {
  return async (req: agent.GetRunRequest): Promise<agent.GetRunResponse> => {
    const ref = runRef(req);
    const row = await store.get(ref.workspaceId, ref.runId);
    if (!row) throw new ApiError('not_found');
    return { $typeName: 'wap.agent.v1.GetRunResponse', run: toRun(row, await store.files(row.id)) };
  };
}
