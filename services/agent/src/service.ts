// The agent service: browser agent runs (docs/agent.md).
import { agent } from '@wap/proto';
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
    await service.start();
    return { stop: service.stop };
  },
};
