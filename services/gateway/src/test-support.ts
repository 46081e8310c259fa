// Shared by the gateway's tests (not a test itself): a fresh migrated database,
// opened the way the service opens it.
import path from 'node:path';
import { type FreshDatabase, freshServiceDatabase } from '@wap/testkit';
import { type GatewayDatabase, openGatewayDatabase } from './store/database.js';

export const SERVICE_DIR = path.resolve(__dirname, '..');

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
