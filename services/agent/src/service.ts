// The agent service: browser agent runs, secrets, rules and integrations.
import { createPrismaAdapter } from '@wap/db';
import type { ServiceDefinition } from '@wap/service';
import { type AgentDatabase, openAgent } from './agent.js';
import { env } from './config.js';
import { PrismaClient } from './generated/prisma/client.js';

export const definition: ServiceDefinition<typeof env, AgentDatabase> = {
  name: 'agent',
  env,
  openDatabase: (url) => new PrismaClient({ adapter: createPrismaAdapter(url) }),
  start: async ({ config, db, nats, log }) => {
    const service = openAgent(config, db, nats, log);
    await service.start();
    return { stop: service.stop };
  },
};
