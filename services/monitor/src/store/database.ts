import { createPrismaAdapter } from '@wap/db';
import { PrismaClient } from '../generated/prisma/client.js';

/** The monitor database: monitors, their snapshots and deliveries. */
export type MonitorDatabase = PrismaClient;

export const openMonitorDatabase = (url: string): MonitorDatabase =>
  new PrismaClient({ adapter: createPrismaAdapter(url) });
