// The session-recorder service: browser session recordings, network logs and exports.
import { createPrismaAdapter } from '@wap/db';
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { PrismaClient } from './generated/prisma/client.js';
import { openSessionRecorder, type SessionRecorderDatabase } from './session-recorder.js';

export const definition: ServiceDefinition<typeof env, SessionRecorderDatabase> = {
  name: 'session-recorder',
  env,
  openDatabase: (url) => new PrismaClient({ adapter: createPrismaAdapter(url) }),
  start: async ({ config, db, nats, log }) => {
    const service = openSessionRecorder(config, db, nats, log);
    await service.start();
    return { stop: service.stop };
  },
};
