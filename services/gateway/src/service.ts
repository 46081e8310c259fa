// The gateway: the public REST, MCP and CDP entry; identity, registry, auth,
// rate limits and errors. It holds no business logic of the other services.
import type { Server } from 'node:http';
import { createPrismaAdapter } from '@wap/db';
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { PrismaClient } from './generated/prisma/client.js';
import { createApp } from './http/app.js';
import { Upstreams } from './upstreams.js';

export const definition: ServiceDefinition<typeof env, PrismaClient> = {
  name: 'gateway',
  env,
  openDatabase: (url) => new PrismaClient({ adapter: createPrismaAdapter(url) }),
  start: async ({ config, log, health }) => {
    const upstreams = new Upstreams(config);
    const app = createApp({
      log,
      readiness: async () => {
        const [own, services] = await Promise.all([health.evaluate(), upstreams.readiness()]);
        const checks = { gateway: own.failing.length === 0, ...services };
        return { ready: Object.values(checks).every(Boolean), checks };
      },
    });
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(config.HTTP_PORT, config.HTTP_HOST, () => resolve(s));
    });
    const address = server.address();
    log.info(
      { http: typeof address === 'object' && address ? `http://${config.HTTP_HOST}:${address.port}` : address },
      'http listening',
    );
    return {
      stop: async () => {
        // Stop accepting, let in-flight requests finish (the runtime's deadline bounds this).
        await new Promise<void>((resolve) => server.close(() => resolve()));
        upstreams.close();
      },
    };
  },
};
