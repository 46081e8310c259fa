import { createPrismaAdapter } from '@wap/db';
import { PrismaClient } from '../generated/prisma/client.js';

/** The agent database: runs, their events, records and files. */
export type AgentDatabase = PrismaClient;

export const openAgentDatabase = (url: string): AgentDatabase =>
  new PrismaClient({ adapter: createPrismaAdapter(url) });
