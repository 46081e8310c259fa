import { z } from 'zod';
import { duration, logLevel, port, url } from './fields.js';

// Each field's .describe() is its meaning in docs/settings.md (libs/fleet writes it from the schemas).
function sharedShape(grpcPort: number) {
  return {
    LOG_LEVEL: logLevel().default('info').describe('fatal, error, warn, info, debug, trace or silent.'),
    NATS_URL: url({ protocols: ['nats:', 'tls:'], list: true }).describe(
      "NATS JetStream (nats:// or tls://); a cluster's servers separated by commas, so a client reconnects to another when one goes.",
    ),
    GRPC_PORT: port()
      .prefault(String(grpcPort))
      .describe(
        'Port of the gRPC server (and its health service); each service has its own default, so all can run on one machine.',
      ),
    SHUTDOWN_TIMEOUT: duration()
      .prefault('10s')
      .describe(
        "Time to drain in-flight work after SIGTERM; the default stays well under Kubernetes' 30 s grace period, so the service exits before SIGKILL.",
      ),
    OTEL_EXPORTER_OTLP_ENDPOINT: url({ protocols: ['http:', 'https:'] })
      .optional()
      .describe(
        'OTLP/HTTP collector for traces, read by the OpenTelemetry SDK (checked here, so a typo fails at start); unset, nothing is exported.',
      ),
  };
}

const databaseShape = {
  DATABASE_URL: url({ protocols: ['postgresql:', 'postgres:'] }).describe("The service's own Postgres database."),
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
