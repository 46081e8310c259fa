import { createPrismaAdapter } from '@wap/db';
import { PrismaClient } from '../generated/prisma/client.js';

/** The browser-host database: sessions as the hosts run them, and saved profiles. */
export type BrowserHostDatabase = PrismaClient;

export const openBrowserHostDatabase = (url: string): BrowserHostDatabase =>
  new PrismaClient({ adapter: createPrismaAdapter(url) });
