// Shared by the monitor service's tests (not a test itself): a fresh migrated
// database, and the service run as its own process, as the fleet runs it.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { type FreshDatabase, freshServiceDatabase, type ServiceProcess, spawnService } from '@wap/testkit';

export const SERVICE_DIR = path.resolve(__dirname, '..');

/** A new database with every migration applied, as the deploy Job would leave it. */
export const freshDatabase = (): Promise<FreshDatabase> => freshServiceDatabase(SERVICE_DIR);

/** The service as its own process: the shared runtime (runService) around service.ts and openMonitor. */
export const spawnMonitor = (databaseUrl: string, port: number, env: Record<string, string> = {}): ServiceProcess =>
  spawnService('monitor', databaseUrl, port, env);

/** An hourly monitor's row, due at `dueAt`, for the stores' tests. */
export const monitorRow = (workspaceId: string, dueAt: Date, path: string) => ({
  id: randomUUID(),
  workspaceId,
  url: `http://127.0.0.1/${path}`,
  schedule: { kind: 'every', ms: 3_600_000 },
  watch: { kind: 'main' },
  scrape: {},
  targetKind: 'webhook',
  targetSealed: 'x',
  targetShown: 'https://example.com/…',
  anchorAt: new Date(dueAt.getTime() - 3_600_000),
  nextCheckAt: dueAt,
});
