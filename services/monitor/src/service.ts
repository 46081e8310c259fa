// The monitor service: scheduled page monitors, diffs and notifications.
import { monitor } from '@wap/proto';
import { addService } from '@wap/rpc';
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { type MonitorDatabase, openMonitor } from './monitor.js';
import { openMonitorDatabase } from './store/database.js';

export const definition: ServiceDefinition<typeof env, MonitorDatabase> = {
  name: 'monitor',
  env,
  openDatabase: (url) => openMonitorDatabase(url),
  start: async ({ config, db, nats, log, server }) => {
    const service = openMonitor(config, db, nats, log);
    await service.start();
    addService(server, monitor.MonitorService, service.impl, log);
    return { stop: service.stop };
  },
};
