import { ApiError } from '@wap/errors';
import type { integrations } from '@wap/proto';
import { resourceId } from '@wap/rpc';
import type { AgentRpcDeps } from './deps.js';
import { invalid } from './parse.js';

/**
 * integrations.DeleteIntegration: disconnects the server; its secret stays. A
 * run holding a grant is told integration_changed (`disconnected`) at its next use.
 */
export function deleteIntegration({ integrationStore }: AgentRpcDeps) {
  return async (req: integrations.DeleteIntegrationRequest): Promise<integrations.DeleteIntegrationResponse> => {
    if (!req.workspaceId) invalid('workspaceId', 'required');
    const id = resourceId(req.integrationId);
    if (!(await integrationStore.delete(req.workspaceId, id)))
      throw new ApiError('not_found', { resource: 'integration', id });
    return { $typeName: 'wap.agent.v1.DeleteIntegrationResponse' };
  };
}
