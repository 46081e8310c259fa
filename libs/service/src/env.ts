import { port, serviceEnv } from '@wap/config';
import { z } from 'zod';

/** Variables every service reads; each service extends this with its own. */
export const baseEnv = (grpcPort: number) =>
  serviceEnv({ grpcPort, database: true }).extend({
    /** The service's name on its traces; read by the telemetry preload before config loads. */
    OTEL_SERVICE_NAME: z.string().optional(),
    /** 127.0.0.1 on a laptop; 0.0.0.0 in a cluster. */
    GRPC_HOST: z.string().default('127.0.0.1'),
    /** Port of GET /metrics for Prometheus, on GRPC_HOST; unset, metrics are not served. */
    METRICS_PORT: port().optional(),
    /**
     * Prefix of every JetStream stream and subject the service declares, so
     * several deployments (or test fleets) can share one NATS server.
     */
    NATS_NAMESPACE: z
      .string()
      .regex(/^[a-z0-9_]*$/, 'lower-case letters, digits and _ only')
      .default(''),
  });

export type BaseEnv = z.infer<ReturnType<typeof baseEnv>>;
