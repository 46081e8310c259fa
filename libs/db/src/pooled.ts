// One connection pool per process, shared by a service's typed Prisma client and
// its hot paths, which run plain SQL on node-postgres: one round trip without
// Prisma's per-query work (measured: docs/decisions/0004-ledger-concurrency.md).
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { inTransaction } from './transaction';

export interface PrismaLike {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $disconnect(): Promise<void>;
}

export class PooledDatabase<P extends PrismaLike> {
  readonly pool: pg.Pool;
  readonly prisma: P;

  constructor(url: string, makeClient: (adapter: PrismaPg) => P, poolSize = 10) {
    this.pool = new pg.Pool({ connectionString: url, max: poolSize });
    // An idle connection dropped by the server would otherwise crash the
    // process; the readiness probe reports the database instead.
    this.pool.on('error', () => undefined);
    this.prisma = makeClient(new PrismaPg(this.pool));
  }

  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T> {
    return this.prisma.$queryRawUnsafe<T>(query, ...values);
  }

  /**
   * Runs `work` in one transaction on one pooled connection: committed when
   * it returns, rolled back when it throws (the error is rethrown).
   */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work);
  }

  async $disconnect(): Promise<void> {
    await this.prisma.$disconnect();
    await this.pool.end();
  }
}
