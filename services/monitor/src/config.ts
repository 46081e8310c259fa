import { baseEnv } from '@wap/service';
import { z } from 'zod';

/** Every variable the service reads. */
export const env = baseEnv(50054).extend({
  /**
   * Seals what a monitor keeps that is a credential: its target URL (a
   * Discord or Slack webhook URL carries its token) and a webhook's signing
   * secret (docs/monitors.md). Unset, monitors cannot be created.
   */
  MONITOR_KEY: z.string().min(32).optional(),
  /**
   * CIDR ranges a monitor's target may be on besides public addresses, for
   * local test stand-ins only. Empty in production.
   */
  EGRESS_ALLOW: z.string().default(''),
  /**
   * Where Discord's webhook paths are served besides discord.com: changed
   * only for a local stand-in (tests). Monitors' Discord URLs must be on one
   * of the two.
   */
  DISCORD_API_URL: z.string().url().optional(),
  /** Where Slack's incoming-webhook paths are served besides hooks.slack.com: a local stand-in only (tests). */
  SLACK_HOOKS_URL: z.string().url().optional(),
  /**
   * The gateway's public base URL, where notifications link to the snapshots
   * they compare; unset, http://127.0.0.1:HTTP_PORT as the gateway's own.
   */
  PUBLIC_URL: z.string().url().optional(),
  HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** The ledger each check holds and settles with; unset, monitors are not checked. */
  BILLING_LEDGER_ADDR: z.string().optional(),
  /** crawl, whose Scrape fetches each check's page; unset, monitors are not checked. */
  CRAWL_ADDR: z.string().optional(),
  /** How often a replica looks for due checks. */
  MONITOR_POLL_MS: z.coerce.number().int().min(100).max(60_000).default(1_000),
  /**
   * How long a claimed check stays a replica's without renewal (renewed every
   * third of it while it runs): a replica that dies has its checks taken over
   * within this.
   */
  MONITOR_CHECK_LEASE_MS: z.coerce.number().int().min(1_000).max(600_000).default(15_000),
  /** Checks one replica runs at once. */
  MONITOR_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
});

export type MonitorConfig = z.infer<typeof env>;
