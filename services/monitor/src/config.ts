import { duration } from '@wap/config';
import { baseEnv, sharedEnv } from '@wap/service';
import { z } from 'zod';

/** Every variable the service reads; each .describe() is its meaning in docs/settings.md. */
export const env = baseEnv(50054).extend({
  MONITOR_KEY: z
    .string()
    .min(32)
    .optional()
    .describe(
      "Secret (32+ characters) the monitor service seals monitors' target URLs (a Discord or Slack webhook URL carries its token) and webhook signing secrets with; unset, monitors cannot be created. `make up` derives one per machine.",
    ),
  EGRESS_ALLOW: sharedEnv.EGRESS_ALLOW,
  DISCORD_API_URL: z
    .string()
    .url()
    .optional()
    .describe(
      "Another origin for Discord's webhook paths; changed only for a local stand-in (monitors' Discord URLs must be on it or discord.com).",
    ),
  SLACK_HOOKS_URL: z
    .string()
    .url()
    .optional()
    .describe("Another origin for Slack's incoming-webhook paths; changed only for a local stand-in."),
  PUBLIC_URL: sharedEnv.PUBLIC_URL,
  HTTP_PORT: sharedEnv.HTTP_PORT,
  BILLING_LEDGER_ADDR: sharedEnv.BILLING_LEDGER_ADDR.optional(),
  CRAWL_ADDR: sharedEnv.CRAWL_ADDR.optional(),
  MONITOR_POLL: duration({ min: '100ms', max: '1m' })
    .prefault('1s')
    .describe('How often a monitor replica looks for due checks.'),
  MONITOR_CHECK_LEASE: duration({ min: '1s', max: '10m' })
    .prefault('15s')
    .describe(
      "How long a claimed check stays a replica's unrenewed (renewed every third of it while it runs): a dead replica's checks are taken over within it.",
    ),
  MONITOR_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(256)
    .default(16)
    .describe('Checks one monitor replica runs at once.'),
});

export type MonitorConfig = z.infer<typeof env>;
