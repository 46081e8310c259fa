// Shared by the session-recorder service's tests (not a test itself): a fresh migrated
// database, and the service run as its own process, as the fleet runs it.
import path from 'node:path';
import { type FreshDatabase, freshServiceDatabase, type ServiceProcess, spawnService } from '@wap/testkit';

export const SERVICE_DIR = path.resolve(__dirname, '..');

/** A new database with every migration applied, as the deploy Job would leave it. */
export const freshDatabase = (): Promise<FreshDatabase> => freshServiceDatabase(SERVICE_DIR);

/** The service as its own process: the shared runtime (runService) around service.ts and openSessionRecorder. */
export const spawnSessionRecorder = (
  databaseUrl: string,
  port: number,
  env: Record<string, string> = {},
): ServiceProcess => spawnService('session-recorder', databaseUrl, port, env);
