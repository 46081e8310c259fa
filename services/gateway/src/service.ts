// The gateway: the public REST, MCP and CDP entry; identity, registry, auth,
// rate limits and errors. It holds no business logic of the other services.
import { PooledDatabase } from '@wap/db';
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { type GatewayDatabase, openGateway } from './gateway.js';
import { PrismaClient } from './generated/prisma/client.js';

export const definition: ServiceDefinition<typeof env, GatewayDatabase> = {
  name: 'gateway',
  env,
  openDatabase: (url) => new PooledDatabase(url, (adapter) => new PrismaClient({ adapter }), 20),
  start: async ({ config, log, db, health, nats }) => {
    const gateway = openGateway(config, db, nats, log, {
      ownReadiness: async () => (await health.evaluate()).failing.length === 0,
    });
    const { url } = await gateway.start();
    log.info({ http: url, capabilities: gateway.registry.map((r) => r.name) }, 'http listening');
    return { stop: gateway.stop };
  },
};
