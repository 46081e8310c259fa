import { ApiError } from '@wap/errors';
import type { secrets } from '@wap/proto';
import { resourceId } from '@wap/rpc';
import type { AgentRpcDeps } from './deps.js';
import { invalid } from './parse.js';

/**
 * secrets.DeleteSecret: the value, its intents and the runs' links to it go at
 * once; a run already going finds it gone at its next fill.
 */
export function deleteSecret({ secrets: store }: AgentRpcDeps) {
  return async (req: secrets.DeleteSecretRequest): Promise<secrets.DeleteSecretResponse> => {
    if (!req.workspaceId) invalid('workspaceId', 'required');
    const id = resourceId(req.secretId);
    if (!(await store.delete(req.workspaceId, id))) throw new ApiError('not_found', { resource: 'secret', id });
    return { $typeName: 'wap.agent.v1.DeleteSecretResponse' };
  };
}
