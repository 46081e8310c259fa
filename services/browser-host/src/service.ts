// The browser-host service: the Chromium pool, its egress proxy, and (later)
// the CDP proxy, profiles and exits.
import { sessionStreams } from '@wap/events';
import { browser as proto } from '@wap/proto';
import { addService } from '@wap/rpc';
import type { ServiceDefinition } from '@wap/service';
import { openBrowserHost } from './browser-host.js';
import { env } from './config.js';
import { type BrowserHostDatabase, openBrowserHostDatabase } from './store/database.js';

export const definition: ServiceDefinition<typeof env, BrowserHostDatabase> = {
  name: 'browser-host',
  env,
  openDatabase: (url) => openBrowserHostDatabase(url),
  streams: (config) => sessionStreams(config.NATS_NAMESPACE),
  start: async ({ config, log, server, db, nats, metrics }) => {
    const host = openBrowserHost(config, db, nats, log, { metrics });
    await host.start();
    addService(server, proto.BrowserService, host.impl, log);
    host.announce();
    return {
      probes: [{ name: 'chromium', check: host.healthy }],
      stop: host.stop,
    };
  },
};
