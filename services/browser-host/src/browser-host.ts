// Builds the browser host from its config: the one place the egress proxy,
// the Chromium pool and the handlers are wired, shared by service.ts and the tests.
import type { Logger } from '@wap/log';
import { AllowList } from '@wap/netguard';
import type { BrowserHostConfig } from './config.js';
import { EgressProxy } from './egress/proxy.js';
import { BrowserPool } from './pool/pool.js';
import { type BrowserHostDeps, browserService } from './rpc/index.js';

export type BrowserHostSettings = Pick<
  BrowserHostConfig,
  'CHROMIUM_PATH' | 'BROWSER_POOL_SIZE' | 'PAGES_PER_BROWSER' | 'RECYCLE_AFTER_PAGES' | 'EGRESS_ALLOW'
>;

export function openBrowserHost(config: BrowserHostSettings, log: Logger) {
  const allow = AllowList.parse(config.EGRESS_ALLOW);
  if (!allow.empty) log.warn({ allow: allow.cidrs }, 'egress allow-list is set: for local test sites only');
  const egress = new EgressProxy(allow);
  const pool = new BrowserPool({
    executablePath: config.CHROMIUM_PATH,
    size: config.BROWSER_POOL_SIZE,
    pagesPerBrowser: config.PAGES_PER_BROWSER,
    recycleAfterPages: config.RECYCLE_AFTER_PAGES,
    log,
  });
  const deps: BrowserHostDeps = { pool, egress, allow };
  return {
    deps,
    impl: browserService(deps),
    /** Opens the egress proxy; browsers start on first use. */
    start: () => egress.start(),
    healthy: () => pool.healthy(),
    stop: async () => {
      await pool.close();
      await egress.stop();
    },
  };
}
