// The ledger's reads go through Prisma; the money path calls the ledger's SQL
// functions on the shared pool directly (docs/decisions/0004-ledger-concurrency.md).
import { PooledDatabase } from '@wap/db';
import { PrismaClient } from '../generated/prisma/client.js';

// Postgres on a small machine does best with few busy connections; more only queue.
const POOL_SIZE = 10;

export class LedgerDatabase extends PooledDatabase<PrismaClient> {
  constructor(url: string, poolSize = POOL_SIZE) {
    super(url, (adapter) => new PrismaClient({ adapter }), poolSize);
  }
}
