// The agent service's gRPC implementations (AgentService, SecretService,
// IntegrationService, RuleService and ExtractService): one handler per RPC, each in its own file.
import type { agent, extract, integrations, rules, secrets } from '@wap/proto';
import type { ServiceImpl } from '@wap/rpc';
import { addFile } from './add-file.js';
import { answerRun } from './answer-run.js';
import { cancelRun } from './cancel-run.js';
import { connectIntegration } from './connect-integration.js';
import { controlAllowed } from './control-allowed.js';
import { controlRun } from './control-run.js';
import { createSecret } from './create-secret.js';
import { deleteIntegration } from './delete-integration.js';
import { deleteSecret } from './delete-secret.js';
import type { AgentRpcDeps } from './deps.js';
import { extractFormats } from './extract.js';
import { getRules } from './get-rules.js';
import { getRun } from './get-run.js';
import { listEvents } from './list-events.js';
import { listIntegrations } from './list-integrations.js';
import { listRecords } from './list-records.js';
import { listRuns } from './list-runs.js';
import { listSecrets } from './list-secrets.js';
import { setRules } from './set-rules.js';
import { submitRun } from './submit-run.js';

export type { AgentRpcDeps } from './deps.js';

export function agentService(deps: AgentRpcDeps): ServiceImpl<(typeof agent.AgentService)['method']> {
  return {
    submitRun: submitRun(deps),
    getRun: getRun(deps),
    listRuns: listRuns(deps),
    listEvents: listEvents(deps),
    listRecords: listRecords(deps),
    cancelRun: cancelRun(deps),
    controlRun: controlRun(deps),
    answerRun: answerRun(deps),
    addFile: addFile(deps),
    controlAllowed: controlAllowed(deps),
  };
}

export function secretService(deps: AgentRpcDeps): ServiceImpl<(typeof secrets.SecretService)['method']> {
  return { createSecret: createSecret(deps), listSecrets: listSecrets(deps), deleteSecret: deleteSecret(deps) };
}

export function integrationService(
  deps: AgentRpcDeps,
): ServiceImpl<(typeof integrations.IntegrationService)['method']> {
  return {
    connectIntegration: connectIntegration(deps),
    listIntegrations: listIntegrations(deps),
    deleteIntegration: deleteIntegration(deps),
  };
}

export function ruleService(deps: AgentRpcDeps): ServiceImpl<(typeof rules.RuleService)['method']> {
  return { getRules: getRules(deps), setRules: setRules(deps) };
}

export function extractService(deps: AgentRpcDeps): ServiceImpl<(typeof extract.ExtractService)['method']> {
  return { extract: extractFormats(deps) };
}
