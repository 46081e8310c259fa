import { baseEnv } from '@wap/service';
import { z } from 'zod';

export const env = baseEnv(50056).extend({
  /** Debian's Chromium; never a downloaded browser. */
  CHROMIUM_PATH: z.string().default('/usr/bin/chromium'),
  /** Chromium processes kept running. */
  BROWSER_POOL_SIZE: z.coerce.number().int().min(1).max(64).default(2),
  /** Pages rendered at once in one Chromium. */
  PAGES_PER_BROWSER: z.coerce.number().int().min(1).max(32).default(4),
  /** A Chromium is replaced after this many pages, to bound leaks. */
  RECYCLE_AFTER_PAGES: z.coerce.number().int().min(1).default(200),
  /**
   * CIDR ranges the egress guard lets through, for local test sites only.
   * Empty in production: private, loopback and metadata addresses are refused.
   */
  EGRESS_ALLOW: z.string().default(''),
});

export type BrowserHostConfig = z.infer<typeof env>;
