// Database lifecycle (one Postgres database per service) and the runtime
// connection the generated Prisma clients use.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { checkName } from './names';

export { databaseUrlFor } from './names';

async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Creates the database unless it exists; true when this call created it.
 * Concurrent callers (several replicas starting at once) are serialised on an
 * advisory lock, and the duplicate errors a lost race can still raise are
 * treated as "exists".
 */
export async function ensureDatabase(adminUrl: string, dbName: string): Promise<boolean> {
  checkName(dbName);
  return withAdmin(adminUrl, async (client) => {
    await client.query(`SELECT pg_advisory_lock(hashtext('wap-db:create-database'), hashtext($1))`, [dbName]);
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE "${dbName}"`);
      return true;
    } catch (e) {
      // 42P04 duplicate_database; 23505 when two CREATEs race on pg_database's unique index.
      const code = (e as { code?: string }).code;
      if (code === '42P04' || code === '23505') return false;
      throw e;
    }
  });
}

/** Drops the database, disconnecting its sessions; a no-op when it does not exist. For tests and teardown. */
export async function dropDatabase(adminUrl: string, dbName: string): Promise<void> {
  checkName(dbName);
  await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`));
}

export interface AdapterOptions {
  /** Pool size (pg's default is 10). */
  max?: number;
  /** Called on errors of idle pooled connections, which would otherwise be swallowed. */
  onPoolError?: (err: Error) => void;
}

/** The driver adapter for a generated client: `new PrismaClient({ adapter: createPrismaAdapter(url) })`. */
export function createPrismaAdapter(databaseUrl: string, opts: AdapterOptions = {}): PrismaPg {
  const config: pg.PoolConfig = { connectionString: databaseUrl };
  if (opts.max !== undefined) config.max = opts.max;
  return new PrismaPg(config, opts.onPoolError ? { onPoolError: opts.onPoolError } : undefined);
}

/** What pingDatabase needs of a Prisma client; every generated client has it. */
export interface Queryable {
  $queryRawUnsafe(query: string): PromiseLike<unknown>;
}

/**
 * Readiness probe: resolves once `SELECT 1` answers, rejects on error or after
 * `timeoutMs` (the query itself may still be running then).
 */
export async function pingDatabase(client: Queryable, timeoutMs = 2000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`database ping timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([Promise.resolve(client.$queryRawUnsafe('SELECT 1')), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
