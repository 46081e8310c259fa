import type { agent } from '@wap/proto';
import { isUuid } from '@wap/rpc';
import type { AgentRpcDeps } from './deps.js';

/** agent.ControlAllowed: a person may drive the session while its run is taken over, and only then. */
export function controlAllowed({ pauses }: AgentRpcDeps) {
  return async (req: agent.ControlAllowedRequest): Promise<agent.ControlAllowedResponse> => {
    return {
      $typeName: 'wap.agent.v1.ControlAllowedResponse',
      allowed: isUuid(req.sessionId) && (await pauses.driving(req.workspaceId, req.sessionId)),
    };
  };
}
