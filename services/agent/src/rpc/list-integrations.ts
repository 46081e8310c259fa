import type { integrations } from '@wap/proto';
import { toIntegration } from '../views/secret.js';
import type { AgentRpcDeps } from './deps.js';
import { invalid } from './parse.js';

/** integrations.ListIntegrations: each server, its tools and its secret's handle. */
export function listIntegrations({ integrationStore }: AgentRpcDeps) {
  return async (req: integrations.ListIntegrationsRequest): Promise<integrations.ListIntegrationsResponse> => {
    if (!req.workspaceId) invalid('workspaceId', 'required');
    return {
      $typeName: 'wap.agent.v1.ListIntegrationsResponse',
      integrations: (await integrationStore.list(req.workspaceId)).map(toIntegration),
    };
  };
}
