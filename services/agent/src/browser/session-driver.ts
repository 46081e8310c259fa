// The run's browser as the loop drives it: Playwright connected over CDP to
// the run's browser-host session (through the host's CDP filter, as any
// /connect client), wrapped by the page driver. Playwright is loaded with the
// first run's browser: it is about 80 MB resident, which an idle agent service
// need not hold (make bench's idle.bench).
import { PlaywrightDriver } from './driver.js';
import type { BrowserDriver } from './types.js';

const CONNECT_TIMEOUT_MS = 30_000;

export async function openSessionDriver(
  webSocketUrl: string,
): Promise<BrowserDriver & { endSession(): Promise<void> }> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.connectOverCDP(webSocketUrl, { timeout: CONNECT_TIMEOUT_MS });
  const driver = new PlaywrightDriver(browser);
  const release = driver.close.bind(driver);
  return Object.assign(driver, {
    /** Ends the session itself (Browser.close, which the host answers by ending it and billing its last). */
    async endSession(): Promise<void> {
      await release();
      const cdp = await browser.newBrowserCDPSession();
      await cdp.send('Browser.close').catch(() => undefined);
      await browser.close().catch(() => undefined);
    },
    /** Lets the session go without ending it: it waits for the run's next replica. */
    async close(): Promise<void> {
      await release();
      await browser.close();
    },
  });
}
