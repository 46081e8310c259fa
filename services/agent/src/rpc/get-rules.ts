import type { rules } from '@wap/proto';
import { toRuleSet } from '../views/rule.js';
import type { AgentRpcDeps } from './deps.js';
import { invalid } from './parse.js';

/** rules.GetRules: the workspace's rules as last set, each with its class; none before the first set. */
export function getRules({ rules: store }: AgentRpcDeps) {
  return async (req: rules.GetRulesRequest): Promise<rules.GetRulesResponse> => {
    if (!req.workspaceId) invalid('workspaceId', 'required');
    return { $typeName: 'wap.agent.v1.GetRulesResponse', ...toRuleSet(await store.get(req.workspaceId)) };
  };
}
