// The agent service: browser agent runs, secrets, rules and integrations.
import { createPrismaAdapter } from '@wap/db';
import { baseEnv, type ServiceDefinition } from '@wap/service';
import { PrismaClient } from './generated/prisma/client.js';

const env = baseEnv(50053);

export const definition: ServiceDefinition<typeof env, PrismaClient> = {
  name: 'agent',
  env,
  openDatabase: (url) => new PrismaClient({ adapter: createPrismaAdapter(url) }),
  start: async () => ({}),
};
