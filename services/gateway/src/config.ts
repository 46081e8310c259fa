import { csv, duration } from '@wap/config';
import { baseEnv, sharedEnv } from '@wap/service';
import { z } from 'zod';

/** Every variable the gateway reads; each .describe() is its meaning in docs/settings.md. */
export const env = baseEnv(50050).extend({
  HTTP_HOST: z.string().default('127.0.0.1').describe('Where the public HTTP API listens.'),
  HTTP_PORT: sharedEnv.HTTP_PORT,
  BILLING_LEDGER_ADDR: sharedEnv.BILLING_LEDGER_ADDR.optional(),
  CRAWL_ADDR: sharedEnv.CRAWL_ADDR.optional(),
  AGENT_ADDR: sharedEnv.AGENT_ADDR.optional(),
  MONITOR_ADDR: z.string().optional().describe('gRPC target of monitor; unset, its routes are not served.'),
  SESSION_RECORDER_ADDR: z
    .string()
    .optional()
    .describe('gRPC target of session-recorder; unset, its routes are not served.'),
  BROWSER_HOST_ADDR: sharedEnv.BROWSER_HOST_ADDR.optional(),
  PUBLIC_URL: sharedEnv.PUBLIC_URL,
  TRUSTED_PROXIES: csv()
    .pipe(
      z.array(
        z.union([z.cidrv4(), z.cidrv6(), z.ipv4(), z.ipv6()], {
          error: 'a CIDR range (10.0.0.0/8, fd00::/8) or one address',
        }),
      ),
    )
    .prefault('')
    .describe(
      "Reverse proxies in front of the gateway (the ingress controller's pods): CIDRs or addresses, comma-separated. A request from one counts as the right-most address in TRUSTED_PROXY_HEADER that is no trusted proxy (sign-ins are throttled by it: docs/oauth.md). Empty: its peer.",
    ),
  TRUSTED_PROXY_HEADER: z
    .enum(['x-forwarded-for', 'forwarded'])
    .default('x-forwarded-for')
    .describe(
      "The header the trusted proxies append the client's address to: `x-forwarded-for` (ingress-nginx, most load balancers) or `forwarded` (RFC 7239). The other is never read: a proxy passes on the one it does not write as the client sent it.",
    ),
  REPLAY_KEY: z
    .string()
    .min(32)
    .optional()
    .describe(
      'Secret (32+ characters) the gateway signs replay links with (docs/sessions.md, "Serving"); unset, sessions have no replayUrl and no export. `make up` derives one per machine.',
    ),
  OAUTH_KEY: z
    .string()
    .min(32)
    .optional()
    .describe(
      "Secret (32+ characters) the gateway signs its OAuth sign-in pages' state with (docs/oauth.md); unset, the gateway is no authorization server (API keys only). `make up` derives one per machine.",
    ),
  REPLAY_LINK_TTL: duration({ min: '1m', max: '30d' })
    .prefault('1d')
    .describe('How long a replay or export link is good for (1m to 30d).'),
  STRICT_CONTRACTS: z
    .stringbool()
    .default(false)
    .describe(
      "Tests: an answer that breaks its row's response schema, or an error code the row does not declare, is a 500 (otherwise only logged).",
    ),
  CREDIT_VIEW_TTL: duration()
    .prefault('5s')
    .describe(
      "Longest a workspace's ledger views (its credits, its usage over the default window) are served from the gateway's memory (docs/decisions/0008-credits-cache.md); ledger announcements drop them sooner.",
    ),
  CONSOLE_DIR: z.string().min(1).optional().meta({
    description:
      "The web console's build (index.html and assets/), served at /console; without one, /console is 404 (docs/console.md).",
    shownDefault: "dist/console beside the gateway's code",
  }),
  DEMO_SITE: z
    .string()
    .regex(/^\d{1,3}(\.\d{1,3}){3}:\d{1,5}$/, 'an IPv4 address and a port, such as 127.0.0.3:8080')
    .optional()
    .describe(
      'Where the gateway serves its demo shop (docs/demo.md), as address:port: an address of its own, let through EGRESS_ALLOW, where agent runs can try a page with no internet. Unset: no demo shop. `make up` sets 127.0.0.3 and its HTTP port.',
    ),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1_048_576)
    .describe(
      'Largest request body, JSON, of REST and MCP; a larger one is 413 bad_request. A REST route whose body carries files (POST /v1/agent and /v1/agent/{id}/files) takes the base64 of its files on top.',
    ),
});

export type GatewayConfig = z.infer<typeof env>;
