import { PooledDatabase } from '@wap/db';
import type { PoolClient } from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';

/** The crawl database: Prisma for plain reads and writes, the shared pool for the frontier's transactions. */
export class CrawlDatabase extends PooledDatabase<PrismaClient> {
  constructor(url: string, poolSize = 10) {
    super(url, (adapter) => new PrismaClient({ adapter }), poolSize);
  }
}

/** The first row a statement answers, on the pool or in a transaction; undefined when none. */
export async function firstRow<T>(client: PoolClient | CrawlDatabase['pool'], sql: string, values: unknown[]) {
  const { rows } = await client.query(sql, values);
  return rows[0] as T | undefined;
}
