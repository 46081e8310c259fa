// The session-recorder service: browser session recordings, network logs and exports.
import { createPrismaAdapter } from '@wap/db';
import { baseEnv, type ServiceDefinition } from '@wap/service';
import { PrismaClient } from './generated/prisma/client.js';

const env = baseEnv(50055);

export const definition: ServiceDefinition<typeof env, PrismaClient> = {
  name: 'session-recorder',
  env,
  openDatabase: (url) => new PrismaClient({ adapter: createPrismaAdapter(url) }),
  start: async () => ({}),
};
