// The browser-host service: the Chromium pool, its egress proxy, and (later)
// the CDP proxy, profiles and exits.
import { createPrismaAdapter } from '@wap/db';
import { AllowList } from '@wap/netguard';
import { browser as proto } from '@wap/proto';
import { addService } from '@wap/rpc';
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { EgressProxy } from './egress/proxy.js';
import { PrismaClient } from './generated/prisma/client.js';
import { BrowserPool } from './pool/pool.js';
import { renderRpc } from './rpc/render.js';

export const definition: ServiceDefinition<typeof env, PrismaClient> = {
  name: 'browser-host',
  env,
  openDatabase: (url) => new PrismaClient({ adapter: createPrismaAdapter(url) }),
  start: async ({ config, log, server }) => {
    const allow = AllowList.parse(config.EGRESS_ALLOW);
    if (!allow.empty) log.warn({ allow: allow.cidrs }, 'egress allow-list is set: for local test sites only');
    const egress = new EgressProxy(allow);
    await egress.start();
    const pool = new BrowserPool({
      executablePath: config.CHROMIUM_PATH,
      size: config.BROWSER_POOL_SIZE,
      pagesPerBrowser: config.PAGES_PER_BROWSER,
      recycleAfterPages: config.RECYCLE_AFTER_PAGES,
      log,
    });
    addService(server, proto.BrowserService, { render: renderRpc(pool, egress, allow) }, log);
    return {
      probes: [{ name: 'chromium', check: () => pool.healthy() }],
      stop: async () => {
        await pool.close();
        await egress.stop();
      },
    };
  },
};
