import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { databaseUrlFor, dropDatabase, ensureDatabase } from './database';
import { localInfra } from './local-infra';

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * For tests and benches: a new database with every migration of the service
 * in `serviceDir` applied, as the deploy Job would leave it. Migrated by the
 * CLI in a child process, as the Job runs it (in-process the wasm engine
 * would keep the caller alive ten seconds after its tests end).
 */
export async function freshServiceDatabase(serviceDir: string): Promise<FreshDatabase> {
  const admin = localInfra().adminUrl;
  const name = `t${randomBytes(4).toString('hex')}_${path.basename(serviceDir).replaceAll('-', '_')}`;
  await ensureDatabase(admin, name);
  const url = databaseUrlFor(admin, name);
  const drop = () => dropDatabase(admin, name);
  await promisify(execFile)(process.execPath, [path.join(__dirname, 'cli.js'), 'migrate', serviceDir], {
    env: { ...process.env, DATABASE_URL: url },
  }).catch(async (err: unknown) => {
    await drop();
    throw err;
  });
  return { url, drop };
}
