// Shared by the agent service's tests (not a test itself): a fresh migrated
// database, and the service run as its own process, as the fleet runs it.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { type FreshDatabase, freshServiceDatabase, type ServiceProcess, spawnService } from '@wap/testkit';
import type { NewRun, RunStore } from './store/runs.js';

export const SERVICE_DIR = path.resolve(__dirname, '..');

/** A new database with every migration applied, as the deploy Job would leave it. */
export const freshDatabase = (): Promise<FreshDatabase> => freshServiceDatabase(SERVICE_DIR);

/** The service as its own process: the shared runtime (runService) around service.ts and openAgent. */
export const spawnAgent = (databaseUrl: string, port: number, env: Record<string, string> = {}): ServiceProcess =>
  // The ledger is dialled only when a run is submitted or claimed: a process with none still starts and serves.
  spawnService('agent', databaseUrl, port, { BILLING_LEDGER_ADDR: '127.0.0.1:9', ...env });

/** A run as a submit stores it; `over` sets what the test is about. */
export const testRun = (workspaceId: string, over: Partial<NewRun> = {}): NewRun => ({
  workspaceId,
  requestId: randomUUID(),
  task: 'a task',
  startUrl: 'https://example.com/',
  profileId: undefined,
  outputSchema: undefined,
  model: 'scripted',
  maxCredits: 10,
  maxSteps: 5,
  ...over,
});

/** Submits a run of `workspaceId` with `files` handed files; answers its id. */
export async function submitTestRun(
  store: RunStore,
  workspaceId: string,
  files = 0,
  over: Partial<NewRun> = {},
): Promise<string> {
  const id = randomUUID();
  await store.submit(
    id,
    testRun(workspaceId, over),
    Array.from({ length: files }, (_, i) => ({
      handle: `file_${id}_${i}`,
      name: `f${i}.txt`,
      mimeType: 'text/plain',
      size: 1,
      sealed: new Uint8Array([1, 2, 3]),
    })),
  );
  return id;
}

/** The run as `replica` claims it, among those it may claim: a test's own. */
export const claimFor = async (store: RunStore, replica: string, id: string, leaseMs = 60_000) =>
  (await store.claim(replica, 100, leaseMs)).find((r) => r.id === id);
