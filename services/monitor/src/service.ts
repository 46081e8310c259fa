// The monitor service: scheduled page monitors, diffs and notifications.
import { createPrismaAdapter } from '@wap/db';
import { baseEnv, type ServiceDefinition } from '@wap/service';
import { PrismaClient } from './generated/prisma/client.js';

const env = baseEnv(50054);

export const definition: ServiceDefinition<typeof env, PrismaClient> = {
  name: 'monitor',
  env,
  openDatabase: (url) => new PrismaClient({ adapter: createPrismaAdapter(url) }),
  start: async () => ({}),
};
