import { PooledDatabase } from '@wap/db';
import { PrismaClient } from '../generated/prisma/client.js';

/** The crawl database: Prisma for plain reads and writes, the shared pool for the frontier's transactions. */
export class CrawlDatabase extends PooledDatabase<PrismaClient> {
  constructor(url: string, poolSize = 10) {
    super(url, (adapter) => new PrismaClient({ adapter }), poolSize);
  }
}
