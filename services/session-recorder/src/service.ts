// The session-recorder service: browser session recordings, network logs and exports.
import { sessionConsumers, sessionStreams } from '@wap/events';
import { sessions } from '@wap/proto';
import { addService } from '@wap/rpc';
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { openSessionRecorder, type SessionRecorderDatabase } from './session-recorder.js';
import { openSessionRecorderDatabase } from './store/database.js';

export const definition: ServiceDefinition<typeof env, SessionRecorderDatabase> = {
  name: 'session-recorder',
  env,
  openDatabase: (url) => openSessionRecorderDatabase(url),
  streams: (config) => sessionStreams(config.NATS_NAMESPACE),
  consumers: (config) => sessionConsumers(config.NATS_NAMESPACE),
  start: async ({ config, db, nats, log, server }) => {
    const service = openSessionRecorder(config, db, nats, log);
    await service.start();
    addService(server, sessions.SessionService, service.impl, log);
    return { stop: service.stop };
  },
};
