import { baseEnv } from '@wap/service';
import { z } from 'zod';

export const env = baseEnv(50050).extend({
  /** Where the public HTTP API listens. */
  HTTP_HOST: z.string().default('127.0.0.1'),
  HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /**
   * gRPC targets (host:port or dns:///name:port) of the services behind the
   * gateway. A service left unset is not configured: its capabilities have no
   * registry row and readiness does not wait for it.
   */
  BILLING_LEDGER_ADDR: z.string().optional(),
  CRAWL_ADDR: z.string().optional(),
  AGENT_ADDR: z.string().optional(),
  MONITOR_ADDR: z.string().optional(),
  SESSION_RECORDER_ADDR: z.string().optional(),
  BROWSER_HOST_ADDR: z.string().optional(),
  /** The base URL clients use (behind an ingress); named in the OpenAPI document's servers. */
  PUBLIC_URL: z.string().url().optional(),
  /**
   * Signs the replay links of sessions (docs/sessions.md, "Serving"): a link
   * opens a session's replay without the API key until it expires. Unset,
   * sessions have no replayUrl.
   */
  REPLAY_KEY: z.string().min(32).optional(),
  /**
   * Signs the state the OAuth sign-in pages carry between their steps
   * (docs/oauth.md). Unset, the gateway is no authorization server: no
   * sign-in, and only API keys are credentials.
   */
  OAUTH_KEY: z.string().min(32).optional(),
  /** How long a replay link is good for, in seconds. */
  REPLAY_LINK_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 86_400)
    .default(86_400),
  /**
   * Under test: an answer that breaks its row's response schema, or an error code the
   * row does not declare, is answered as a 500 instead of only logged.
   */
  STRICT_CONTRACTS: z.stringbool().default(false),
  /**
   * The longest a workspace's ledger views (its credits, its usage over the
   * default window) are served from memory without asking the ledger
   * (docs/decisions/0008-credits-cache.md); announcements drop them sooner.
   */
  CREDIT_VIEW_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  /**
   * The web console's build (index.html and assets/, docs/console.md); by
   * default dist/console beside the gateway's compiled code. Without one,
   * /console answers 404 and the rest of the gateway is unchanged.
   */
  CONSOLE_DIR: z.string().min(1).optional(),
  /** Largest JSON body accepted, in bytes. */
  MAX_BODY_BYTES: z.coerce.number().int().positive().default(1_048_576),
});

export type GatewayConfig = z.infer<typeof env>;
