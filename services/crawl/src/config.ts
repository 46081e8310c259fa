import { baseEnv } from '@wap/service';
import { z } from 'zod';

export const env = baseEnv(50052).extend({
  /** The ledger every billable page is held and settled on. */
  BILLING_LEDGER_ADDR: z.string(),
  /** The browser host that renders pages; without it only the fetch engine runs. */
  BROWSER_HOST_ADDR: z.string().optional(),
  /**
   * CIDR ranges the fetch guard lets through, for local test sites only.
   * Empty in production: private, loopback and metadata addresses are refused.
   */
  EGRESS_ALLOW: z.string().default(''),
});

export type CrawlConfig = z.infer<typeof env>;
