import { baseEnv } from '@wap/service';
import { z } from 'zod';

export const env = baseEnv(50050).extend({
  /** Where the public HTTP API listens. */
  HTTP_HOST: z.string().default('127.0.0.1'),
  HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** gRPC addresses (host:port) of the services behind the gateway. */
  BILLING_LEDGER_ADDR: z.string().default('127.0.0.1:50051'),
  CRAWL_ADDR: z.string().default('127.0.0.1:50052'),
  AGENT_ADDR: z.string().default('127.0.0.1:50053'),
  MONITOR_ADDR: z.string().default('127.0.0.1:50054'),
  SESSION_RECORDER_ADDR: z.string().default('127.0.0.1:50055'),
  BROWSER_HOST_ADDR: z.string().default('127.0.0.1:50056'),
});

export type GatewayConfig = z.infer<typeof env>;
