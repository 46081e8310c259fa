// Shared by the *.test.ts files (not a test file itself): throwaway databases
// on the local Postgres and throwaway migration directories.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { databaseUrlFor, dropDatabase, ensureDatabase } from './database';
import { localInfra } from './local-infra';
import { LOCKFILE_CONTENT } from './migrations';

export const LIB_DIR = path.resolve(__dirname, '..');
export const FIXTURE_DIR = path.join(LIB_DIR, 'test-fixtures', 'demo');

/** The local Postgres server's admin URL; tests fail (not skip) without a server. */
export const adminUrl = (): string => localInfra().adminUrl;

export function uniqueDbName(tag: string): string {
  return `wapdb_test_${tag}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** Runs fn against a fresh, uniquely named database, dropped afterwards whatever happens. */
export async function withDatabase<T>(tag: string, fn: (url: string, name: string) => Promise<T>): Promise<T> {
  const name = uniqueDbName(tag);
  await ensureDatabase(adminUrl(), name);
  try {
    return await fn(databaseUrlFor(adminUrl(), name), name);
  } finally {
    await dropDatabase(adminUrl(), name);
  }
}

export async function query<R extends pg.QueryResultRow = Record<string, unknown>>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

export async function tables(url: string): Promise<string[]> {
  const rows = await query<{ t: string }>(url, `SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public'`);
  // Sorted here, by code unit: the server's collation would order '_' differently.
  return rows.map((r) => r.t).sort();
}

export async function tempDir(tag: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), `wap-db-${tag}-`));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes migrations given as [dirName, sql] pairs, with the lockfile, into dir. */
export async function writeMigrations(dir: string, migrations: [string, string][]): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'migration_lock.toml'), LOCKFILE_CONTENT);
  for (const [name, sql] of migrations) {
    await mkdir(path.join(dir, name), { recursive: true });
    await writeFile(path.join(dir, name, 'migration.sql'), sql);
  }
}
