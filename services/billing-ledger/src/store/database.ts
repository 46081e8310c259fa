// One connection pool per process, shared by the typed Prisma client (reads)
// and the money path, which calls the ledger's SQL functions on node-postgres
// directly: one round trip per RPC without Prisma's per-query work
// (docs/decisions/0004-ledger-concurrency.md).
import { PrismaPg } from '@prisma/adapter-pg';
import type { ServiceDatabase } from '@wap/service';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';

// Postgres on a small machine does best with few busy connections; more only queue.
const POOL_SIZE = 10;

export class LedgerDatabase implements ServiceDatabase {
  readonly pool: pg.Pool;
  readonly prisma: PrismaClient;

  constructor(url: string, poolSize = POOL_SIZE) {
    this.pool = new pg.Pool({ connectionString: url, max: poolSize });
    // An idle connection dropped by the server would otherwise crash the
    // process; the readiness probe reports the database instead.
    this.pool.on('error', () => undefined);
    this.prisma = new PrismaClient({ adapter: new PrismaPg(this.pool) });
  }

  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T> {
    return this.prisma.$queryRawUnsafe<T>(query, ...values);
  }

  async $disconnect(): Promise<void> {
    await this.prisma.$disconnect();
    await this.pool.end();
  }
}
