// The agent service: browser agent runs (docs/agent.md), the secrets, rules and integrations they use (docs/secrets.md), and scraped pages' model formats (docs/api.md).
import { agent, extract, integrations, rules, secrets } from '@wap/proto';
import { addService } from '@wap/rpc';
import type { ServiceDefinition } from '@wap/service';
import { type AgentDatabase, openAgent } from './agent.js';
import { env } from './config.js';
import { openAgentDatabase } from './store/database.js';

export const definition: ServiceDefinition<typeof env, AgentDatabase> = {
  name: 'agent',
  env,
  openDatabase: openAgentDatabase,
  start: async ({ config, db, nats, log, server }) => {
    const service = openAgent(config, db, nats, log);
    addService(server, agent.AgentService, service.impl, log);
    addService(server, secrets.SecretService, service.secretsImpl, log);
    addService(server, integrations.IntegrationService, service.integrationsImpl, log);
    addService(server, rules.RuleService, service.rulesImpl, log);
    addService(server, extract.ExtractService, service.extractImpl, log);
    await service.start();
    return { stop: service.stop };
  },
};
