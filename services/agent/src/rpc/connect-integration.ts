import type { integrations } from '@wap/proto';
import { HANDLE } from '../domain/secrets.js';
import { toIntegration } from '../views/secret.js';
import type { AgentRpcDeps } from './deps.js';
import { invalid } from './parse.js';

/**
 * integrations.ConnectIntegration: an HTTPS MCP server, checked with its
 * secret (initialize and tools/list through the guarded dispatcher), stored
 * with its tools; integration_check_failed when it does not pass.
 */
export function connectIntegration({ integrations: service }: AgentRpcDeps) {
  return async (req: integrations.ConnectIntegrationRequest): Promise<integrations.ConnectIntegrationResponse> => {
    if (!req.workspaceId) invalid('workspaceId', 'required');
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      invalid('url', 'an absolute https URL');
    }
    if (url.username || url.password) invalid('url', 'must not hold a user name or password: the secret authenticates');
    if (url.hash) invalid('url', 'must not have a fragment');
    if (!HANDLE.test(req.secretHandle)) invalid('secret', 'the handle of an env secret (POST /v1/secrets)');
    const row = await service.connect(req.workspaceId, url, req.secretHandle);
    return { $typeName: 'wap.agent.v1.ConnectIntegrationResponse', integration: toIntegration(row) };
  };
}
