// Shared by the agent service's tests (not a test itself): a fresh migrated
// database, and the service run as its own process, as the fleet runs it.
import path from 'node:path';
import { type FreshDatabase, freshServiceDatabase, type ServiceProcess, spawnService } from '@wap/testkit';

export const SERVICE_DIR = path.resolve(__dirname, '..');

/** A new database with every migration applied, as the deploy Job would leave it. */
export const freshDatabase = (): Promise<FreshDatabase> => freshServiceDatabase(SERVICE_DIR);

/** The service as its own process: the shared runtime (runService) around service.ts and openAgent. */
export const spawnAgent = (databaseUrl: string, port: number, env: Record<string, string> = {}): ServiceProcess =>
  // The ledger is dialled only when a run is submitted or claimed: a process with none still starts and serves.
  spawnService('agent', databaseUrl, port, { BILLING_LEDGER_ADDR: '127.0.0.1:9', ...env });
