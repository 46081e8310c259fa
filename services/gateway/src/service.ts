// The gateway: the public REST, MCP and CDP entry; identity, registry, auth,
// rate limits and errors. It holds no business logic of the other services.
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { openGateway } from './gateway.js';
import { type GatewayDatabase, openGatewayDatabase } from './store/database.js';

export const definition: ServiceDefinition<typeof env, GatewayDatabase> = {
  name: 'gateway',
  env,
  openDatabase: (url) => openGatewayDatabase(url),
  start: async ({ config, log, db, health, nats }) => {
    const gateway = openGateway(config, db, nats, log, {
      ownReadiness: async () => (await health.evaluate()).failing.length === 0,
    });
    const { url, demoUrl } = await gateway.start();
    log.info({ http: url, demo: demoUrl, capabilities: gateway.registry.map((r) => r.name) }, 'http listening');
    return { stop: gateway.stop };
  },
};
