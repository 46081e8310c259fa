import { createPrismaAdapter } from '@wap/db';
import { PrismaClient } from '../generated/prisma/client.js';

/** The session-recorder database: sessions, their recordings and network logs. */
export type SessionRecorderDatabase = PrismaClient;

export const openSessionRecorderDatabase = (url: string): SessionRecorderDatabase =>
  new PrismaClient({ adapter: createPrismaAdapter(url) });
