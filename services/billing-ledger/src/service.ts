// The billing-ledger service: credits, holds, usage and concurrency slots.
import { createPrismaAdapter } from '@wap/db';
import { baseEnv, type ServiceDefinition } from '@wap/service';
import { PrismaClient } from './generated/prisma/client.js';

const env = baseEnv(50051);

export const definition: ServiceDefinition<typeof env, PrismaClient> = {
  name: 'billing-ledger',
  env,
  openDatabase: (url) => new PrismaClient({ adapter: createPrismaAdapter(url) }),
  start: async () => ({}),
};
