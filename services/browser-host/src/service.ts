// The browser-host service: the Chromium pool, CDP proxy, profiles and exits.
import { createPrismaAdapter } from '@wap/db';
import { baseEnv, type ServiceDefinition } from '@wap/service';
import { PrismaClient } from './generated/prisma/client.js';

const env = baseEnv(50056);

export const definition: ServiceDefinition<typeof env, PrismaClient> = {
  name: 'browser-host',
  env,
  openDatabase: (url) => new PrismaClient({ adapter: createPrismaAdapter(url) }),
  start: async () => ({}),
};
