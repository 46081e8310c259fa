// The service runs as the fleet runs it: its migrations on a fresh database,
// the shared runtime around its composition root, gRPC health SERVING, and a
// drain and exit 0 on SIGTERM.
import { test } from 'node:test';
import { freePort, servesAndStops } from '@wap/testkit';
import { freshDatabase, spawnAgent } from './test-support.js';

test('the agent service starts on a fresh database, serves gRPC health and exits 0 on SIGTERM', async () => {
  const database = await freshDatabase();
  try {
    await servesAndStops(spawnAgent(database.url, await freePort()));
  } finally {
    await database.drop();
  }
});
