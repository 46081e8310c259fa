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
});

export type MonitorConfig = z.infer<typeof env>;
