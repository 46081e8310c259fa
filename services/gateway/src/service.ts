// The gateway: the public REST, MCP and CDP entry; identity, registry, auth,
// rate limits and errors. It holds no business logic of the other services.
import type { Server } from 'node:http';
import { PooledDatabase } from '@wap/db';
import { creditsChangedSubject } from '@wap/events';
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { CreditViews } from './credit-views.js';
import { PrismaClient } from './generated/prisma/client.js';
import { createApp } from './http/app.js';
import { ApiKeyCache } from './identity/cache.js';
import { type ApiKeyRow, IdentityStore } from './identity/store.js';
import { IdempotencyStore } from './invoke/idempotency.js';
import { Invoker } from './invoke/invoke.js';
import { RateLimiter, rateLimitPool } from './invoke/rate-limit.js';
import { buildRegistry } from './registry/index.js';
import { type CreditsView, Upstreams } from './upstreams.js';

export const definition: ServiceDefinition<typeof env, PooledDatabase<PrismaClient>> = {
  name: 'gateway',
  env,
  openDatabase: (url) => new PooledDatabase(url, (adapter) => new PrismaClient({ adapter }), 20),
  start: async ({ config, log, db, health, nats }) => {
    const upstreams = new Upstreams(config);
    const registry = buildRegistry(upstreams);
    const creditViews = new CreditViews<CreditsView>(nats.nc, creditsChangedSubject(config.NATS_NAMESPACE), log);
    await creditViews.start();
    const limiterPool = rateLimitPool(config.DATABASE_URL);
    const keys = new ApiKeyCache<ApiKeyRow>(config.DATABASE_URL, log);
    keys.start();
    // Normally listening within milliseconds; if not, requests read the database until it is.
    await Promise.race([keys.whenListening(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    const idempotency = new IdempotencyStore(db.prisma);
    const invoker = new Invoker({
      log,
      limiter: new RateLimiter(limiterPool),
      idempotency,
      upstreams,
      creditViews,
      strictContracts: config.STRICT_CONTRACTS,
    });
    const app = createApp({
      log,
      identity: new IdentityStore(db, keys),
      invoker,
      registry,
      publicUrl: config.PUBLIC_URL ?? `http://${config.HTTP_HOST}:${config.HTTP_PORT}`,
      maxBodyBytes: config.MAX_BODY_BYTES,
      readiness: async () => {
        const [own, services] = await Promise.all([health.evaluate(), upstreams.readiness()]);
        const checks = { gateway: own.failing.length === 0, ...services };
        return { ready: Object.values(checks).every(Boolean), checks };
      },
    });
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(config.HTTP_PORT, config.HTTP_HOST, () => resolve(s));
    });
    server.keepAliveTimeout = 65_000; // longer than common load balancer idle timeouts
    log.info(
      { http: `http://${config.HTTP_HOST}:${config.HTTP_PORT}`, capabilities: registry.map((r) => r.name) },
      'http listening',
    );
    const sweep = setInterval(() => {
      idempotency.expire().catch((err) => log.warn({ err }, 'idempotency sweep failed'));
    }, 3_600_000);
    sweep.unref();
    return {
      stop: async () => {
        clearInterval(sweep);
        // Stop accepting, let in-flight requests finish (the runtime's deadline bounds this).
        await new Promise<void>((resolve) => server.close(() => resolve()));
        upstreams.close();
        await Promise.all([limiterPool.end(), keys.stop(), creditViews.stop()]);
      },
    };
  },
};
