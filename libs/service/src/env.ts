import { port, serviceEnv } from '@wap/config';
import { z } from 'zod';

// Each field's .describe() is its meaning in docs/settings.md (libs/fleet writes it from the schemas).

/** Variables every service reads; each service extends this with its own. */
export const baseEnv = (grpcPort: number) =>
  serviceEnv({ grpcPort, database: true }).extend({
    OTEL_SERVICE_NAME: z
      .string()
      .optional()
      .describe('The service name on traces (read by the telemetry preload, before the rest).'),
    GRPC_HOST: z
      .string()
      .default('127.0.0.1')
      .describe('Where the gRPC server listens: 127.0.0.1 on a laptop, 0.0.0.0 in a cluster.'),
    METRICS_PORT: port()
      .optional()
      .describe('Port of GET /metrics (Prometheus text format) on GRPC_HOST; unset, metrics are not served.'),
    SERVICE_TOKEN: z
      .string()
      .min(32, 'expected a secret of 32 or more characters')
      .describe(
        'Shared secret (32+ characters), the same on every service: sent with each gRPC call to another service and asked of each call served, refused UNAUTHENTICATED without it (grpc.health.v1 stays open to probes). `make up` derives one per machine; the chart generates one (decision 0035).',
      ),
    NATS_NAMESPACE: z
      .string()
      .regex(/^[a-z0-9_]*$/, 'lower-case letters, digits and _ only')
      .default('')
      .describe('Prefix of every stream and subject, so deployments (or test fleets) can share one NATS.'),
    NATS_REPLICAS: z.coerce
      .number()
      .int()
      .min(1)
      .max(5)
      .default(1)
      .describe(
        'How many NATS servers keep each JetStream stream the service declares: 1 for one server, 3 for a cluster of three (a stream then outlives the loss of any one). No more than the cluster has servers.',
      ),
  });

export type BaseEnv = z.infer<ReturnType<typeof baseEnv>>;

/**
 * Variables several services read, but not all: declared here so each has one
 * meaning. A service takes the ones it reads, `.optional()` where it runs
 * without one.
 */
export const sharedEnv = {
  HTTP_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(8080)
    .describe('Port of the public HTTP API (`make up`: WAP_HTTP_PORT).'),
  PUBLIC_URL: z
    .string()
    .url()
    .optional()
    .describe(
      "Base URL clients use (behind an ingress): named in the OpenAPI servers, and the base of monitors' snapshot links; unset, the gateway's own http://HTTP_HOST:HTTP_PORT (127.0.0.1 for monitors).",
    ),
  BILLING_LEDGER_ADDR: z
    .string()
    .describe(
      'gRPC target of the ledger; unset, the gateway does not serve its routes, browser-host offers no sessions and monitors are not checked.',
    ),
  CRAWL_ADDR: z
    .string()
    .describe('gRPC target of crawl; unset, scrape, crawl and search are not served, and monitors are not checked.'),
  AGENT_ADDR: z
    .string()
    .describe(
      'gRPC target of agent; unset, the gateway does not serve its routes and scrapes answer no model formats (`json`, `summary`).',
    ),
  BROWSER_HOST_ADDR: z
    .string()
    .describe(
      'gRPC target of browser-host, used until hosts announce themselves; unset, crawl fetches without a browser.',
    ),
  EGRESS_ALLOW: z
    .string()
    .default('')
    .describe(
      'CIDR ranges let through the egress guard, comma-separated (127.0.0.0/8 to scrape a local site). Empty: private, loopback and metadata addresses are refused.',
    ),
  RECORDING_KEY: z
    .string()
    .min(32)
    .optional()
    .describe(
      'Shared secret (32+ characters) browser hosts sign recording chunks with and session-recorder checks; unset, sessions are not recorded. `make up` derives one per machine.',
    ),
};
