// The monitor service: scheduled page monitors, diffs and notifications.
import { createPrismaAdapter } from '@wap/db';
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { PrismaClient } from './generated/prisma/client.js';

export const definition: ServiceDefinition<typeof env, PrismaClient> = {
  name: 'monitor',
  env,
  openDatabase: (url) => new PrismaClient({ adapter: createPrismaAdapter(url) }),
  start: async () => ({}),
};
