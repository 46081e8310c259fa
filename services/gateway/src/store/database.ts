// The gateway's database: Prisma for identity and idempotency records, and a
// pg pool beside it for the statements Prisma cannot say.
import { PooledDatabase } from '@wap/db';
import { PrismaClient } from '../generated/prisma/client.js';

export type GatewayDatabase = PooledDatabase<PrismaClient>;

export const openGatewayDatabase = (url: string, connections = 20): GatewayDatabase =>
  new PooledDatabase(url, (adapter) => new PrismaClient({ adapter }), connections);
