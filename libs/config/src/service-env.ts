import { z } from 'zod';
import { duration, logLevel, port, url } from './fields.js';

function sharedShape(grpcPort: number) {
  return {
    LOG_LEVEL: logLevel().default('info'),
    NATS_URL: url({ protocols: ['nats:', 'tls:'] }),
    // Each service has its own default so all six can run on one machine.
    GRPC_PORT: port().prefault(String(grpcPort)),
    // Time to drain in-flight RPCs and consumers after SIGTERM; kept well under
    // Kubernetes' default 30s grace period so we exit before SIGKILL.
    SHUTDOWN_TIMEOUT: duration().prefault('10s'),
    // Read by the OpenTelemetry SDK itself; validated here so a typo fails at
    // start instead of silently dropping every trace. Unset: no export.
    OTEL_EXPORTER_OTLP_ENDPOINT: url({ protocols: ['http:', 'https:'] }).optional(),
  };
}

const databaseShape = {
  DATABASE_URL: url({ protocols: ['postgresql:', 'postgres:'] }),
};

type SharedShape = ReturnType<typeof sharedShape>;
type DatabaseShape = typeof databaseShape;

/**
 * The variables every service shares; `.extend` it with the service's own.
 * DATABASE_URL is opt-in: a service that forgets it gets a type error when it
 * reads config.DATABASE_URL, while one without a database never demands it.
 */
export function serviceEnv(options: { grpcPort: number; database: true }): z.ZodObject<SharedShape & DatabaseShape>;
export function serviceEnv(options: { grpcPort: number; database?: false }): z.ZodObject<SharedShape>;
export function serviceEnv(options: { grpcPort: number; database?: boolean }) {
  const shared = sharedShape(options.grpcPort);
  return z.object(options.database ? { ...shared, ...databaseShape } : shared);
}
