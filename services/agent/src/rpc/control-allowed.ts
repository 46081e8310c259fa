import type { agent } from '@wap/proto';
import { isUuid } from '@wap/rpc';
import type { AgentRpcDeps } from './deps.js';

/** agent.ControlAllowed: a person may drive the session while its run is taken over, and only then. */
export function controlAllowed({ store }: AgentRpcDeps) {
  return async (req: agent.ControlAllowedRequest): Promise<agent.ControlAllowedResponse> => {
    const row = isUuid(req.sessionId) ? await store.bySession(req.workspaceId, req.sessionId) : null;
    return {
      $typeName: 'wap.agent.v1.ControlAllowedResponse',
      allowed: row?.status === 'paused' && row.pausedFor === 'control',
    };
  };
}
