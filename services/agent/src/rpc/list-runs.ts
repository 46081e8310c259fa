import { create } from '@bufbuild/protobuf';
import { agent } from '@wap/proto';
import { decodeCursor, pageLimit, pageOf } from '@wap/rpc';
import { toRunSummary } from '../views/run.js';
import type { AgentRpcDeps } from './deps.js';
import { parseRunStatus } from './parse.js';

/** agent.ListRuns: the workspace's runs, newest first, a page at a time; never another workspace's. */
export function listRuns({ store }: AgentRpcDeps) {
  return async (req: agent.ListRunsRequest): Promise<agent.ListRunsResponse> => {
    const limit = pageLimit(req.limit);
    const status = parseRunStatus(req.status);
    const after = req.cursor ? decodeCursor(req.cursor) : undefined;
    // One more than the page: whether another follows, without a count.
    const found = await store.list(req.workspaceId, {
      status,
      after: after && { createdAt: after.at, id: after.id },
      limit: limit + 1,
    });
    const { page, nextCursor } = pageOf(found, limit, (r) => ({ at: r.createdAt, id: r.id }));
    return create(agent.ListRunsResponseSchema, { runs: page.map(toRunSummary), nextCursor });
  };
}
