import type { secrets } from '@wap/proto';
import { toSecret } from '../views/secret.js';
import type { AgentRpcDeps } from './deps.js';
import { invalid } from './parse.js';

/** secrets.ListSecrets: handles, kinds, domains and a card's last four; never a value. */
export function listSecrets({ secrets: store }: AgentRpcDeps) {
  return async (req: secrets.ListSecretsRequest): Promise<secrets.ListSecretsResponse> => {
    if (!req.workspaceId) invalid('workspaceId', 'required');
    return {
      $typeName: 'wap.agent.v1.ListSecretsResponse',
      secrets: (await store.list(req.workspaceId)).map(toSecret),
    };
  };
}
