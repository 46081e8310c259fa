// The browser-host service: the Chromium pool, its egress proxy, and (later)
// the CDP proxy, profiles and exits.
import { createPrismaAdapter } from '@wap/db';
import { browser as proto } from '@wap/proto';
import { addService } from '@wap/rpc';
import type { ServiceDefinition } from '@wap/service';
import { openBrowserHost } from './browser-host.js';
import { env } from './config.js';
import { PrismaClient } from './generated/prisma/client.js';

export const definition: ServiceDefinition<typeof env, PrismaClient> = {
  name: 'browser-host',
  env,
  openDatabase: (url) => new PrismaClient({ adapter: createPrismaAdapter(url) }),
  start: async ({ config, log, server, db }) => {
    const host = openBrowserHost(config, log, db);
    await host.start();
    addService(server, proto.BrowserService, host.impl, log);
    return { probes: [{ name: 'chromium', check: host.healthy }], stop: host.stop };
  },
};
