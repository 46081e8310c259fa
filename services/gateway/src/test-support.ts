// Shared by the gateway's tests (not a test itself): a fresh migrated database,
// opened the way the service opens it, and a gateway served on it.
import path from 'node:path';
import { loadConfig } from '@wap/config';
import type { NatsLink } from '@wap/events';
import {
  type FreshDatabase,
  freshServiceDatabase,
  infra,
  quietLog,
  TEST_SERVICE_TOKEN,
  uniqueNamespace,
} from '@wap/testkit';
import { env } from './config.js';
import { type GatewayOptions, openGateway } from './gateway.js';
import { type GatewayDatabase, openGatewayDatabase } from './store/database.js';

export const SERVICE_DIR = path.resolve(__dirname, '..');

// The replay page and its reader, for the recording bench (`@wap/gateway/test-support`).
export { replayHtml } from './replay/page.js';
export { readReplayChunks } from './replay/recording.js';

export interface TestDatabase extends FreshDatabase {
  db: GatewayDatabase;
  /** Disconnects, then drops the database. */
  close(): Promise<void>;
}

/** A new database with every migration applied, as the deploy Job would leave it. */
export async function freshDatabase(connections = 6): Promise<TestDatabase> {
  const database = await freshServiceDatabase(SERVICE_DIR);
  const db = openGatewayDatabase(database.url, connections);
  return {
    ...database,
    db,
    close: async () => {
      await db.$disconnect();
      await database.drop();
    },
  };
}

/**
 * A gateway wired by the service's own composition root on `database`,
 * listening on a free port of 127.0.0.1; `settings` are environment variables,
 * as the fleet would pass them. Stop it with `stop()`.
 */
export async function startGateway(
  database: TestDatabase,
  link: NatsLink,
  settings: Record<string, string> = {},
  options: GatewayOptions = {},
) {
  const config = loadConfig(env, {
    DATABASE_URL: database.url,
    NATS_URL: infra().natsUrl,
    NATS_NAMESPACE: uniqueNamespace('gateway'),
    HTTP_PORT: '0',
    SERVICE_TOKEN: TEST_SERVICE_TOKEN,
    ...settings,
  });
  const gateway = openGateway(config, database.db, link, quietLog('gateway-test'), options);
  const { url, demoUrl } = await gateway.start();
  return { ...gateway, url, demoUrl };
}
