// The agent service: browser agent runs, secrets, rules and integrations.
import { createPrismaAdapter } from '@wap/db';
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { PrismaClient } from './generated/prisma/client.js';

export const definition: ServiceDefinition<typeof env, PrismaClient> = {
  name: 'agent',
  env,
  openDatabase: (url) => new PrismaClient({ adapter: createPrismaAdapter(url) }),
  start: async () => ({}),
};
