import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ConfigError, loadConfig, serviceEnv } from './index.js';

const nats = { NATS_URL: 'nats://nats:4222' };

describe('serviceEnv', () => {
  it("fills the shared defaults, with the service's own gRPC port", () => {
    const config = loadConfig(serviceEnv({ grpcPort: 50052 }), nats);
    assert.deepEqual(config, {
      LOG_LEVEL: 'info',
      NATS_URL: 'nats://nats:4222',
      GRPC_PORT: 50052,
      SHUTDOWN_TIMEOUT: 10_000,
    });
  });

  it('reads overrides', () => {
    const config = loadConfig(serviceEnv({ grpcPort: 50052 }), {
      ...nats,
      LOG_LEVEL: 'debug',
      GRPC_PORT: '6000',
      SHUTDOWN_TIMEOUT: '30s',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318',
    });
    assert.equal(config.LOG_LEVEL, 'debug');
    assert.equal(config.GRPC_PORT, 6000);
    assert.equal(config.SHUTDOWN_TIMEOUT, 30_000);
    assert.equal(config.OTEL_EXPORTER_OTLP_ENDPOINT, 'http://otel:4318');
  });

  it('requires NATS_URL, and DATABASE_URL only when asked', () => {
    assert.throws(() => loadConfig(serviceEnv({ grpcPort: 1 }), {}), /NATS_URL: required, not set/);
    assert.ok(!('DATABASE_URL' in serviceEnv({ grpcPort: 1 }).shape));
    const withDb = serviceEnv({ grpcPort: 1, database: true });
    assert.throws(() => loadConfig(withDb, nats), /DATABASE_URL: required, not set/);
    const config = loadConfig(withDb, { ...nats, DATABASE_URL: 'postgres://db/crawl' });
    assert.equal(config.DATABASE_URL, 'postgres://db/crawl');
  });

  it('rejects a default port that is not a port', () => {
    assert.throws(() => loadConfig(serviceEnv({ grpcPort: 0 }), nats), /GRPC_PORT: expected an integer/);
  });

  it("extends with a service's own variables", () => {
    const schema = serviceEnv({ grpcPort: 50053 }).extend({ SEARCH_API_KEY: z.string() });
    const config = loadConfig(schema, { ...nats, SEARCH_API_KEY: 'k' });
    assert.equal(config.SEARCH_API_KEY, 'k');
    assert.equal(config.GRPC_PORT, 50053);
  });

  it('reports wrong protocols', () => {
    try {
      loadConfig(serviceEnv({ grpcPort: 1, database: true }), { NATS_URL: 'http://nats', DATABASE_URL: 'mysql://x' });
      assert.fail('expected a ConfigError');
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(
        err.problems.map((p) => p.variable),
        ['NATS_URL', 'DATABASE_URL'],
      );
    }
  });
});
