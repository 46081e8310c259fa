// One Chromium for one CDP session: its own user-data dir (nothing of an
// earlier session), its own egress proxy (the guard, and the session's byte
// count), downloads denied, CDP on loopback for the host's proxy to reach.
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { AllowList } from '@wap/netguard';
import puppeteer, { type Browser } from 'puppeteer-core';
import { EgressProxy } from '../egress/proxy.js';
import { CHROMIUM_ARGS } from '../pool/pool.js';
import { SESSION_DIR_PREFIX } from './orphans.js';

export interface SessionBrowser {
  browser: Browser;
  egress: EgressProxy;
  /** Chromium's own browser endpoint on loopback, ws://127.0.0.1:<port>/devtools/browser/<id>. */
  endpoint: URL;
  version: { browser: string; protocol: string; userAgent: string };
  close(): Promise<void>;
}

export async function launchSessionBrowser(executablePath: string, allow: AllowList): Promise<SessionBrowser> {
  const egress = new EgressProxy(allow, { owner: true });
  await egress.start();
  const userDataDir = mkdtempSync(SESSION_DIR_PREFIX);
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close().catch(() => browser?.process()?.kill('SIGKILL'));
    await egress.stop().catch(() => undefined);
    await rm(userDataDir, { recursive: true, force: true });
  };
  try {
    browser = await puppeteer.launch({
      executablePath,
      userDataDir,
      headless: true,
      pipe: false,
      args: [
        ...CHROMIUM_ARGS,
        '--remote-debugging-address=127.0.0.1',
        '--remote-debugging-port=0',
        // Every request leaves through the egress proxy, loopback included (Chromium bypasses it for loopback by default).
        `--proxy-server=${egress.url}`,
        '--proxy-bypass-list=<-loopback>',
      ],
      protocolTimeout: 30_000,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    // The spec has no downloads: a page that starts one gets nothing on disk.
    const cdp = await browser.target().createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'deny' });
    const info = await cdp.send('Browser.getVersion');
    return {
      browser,
      egress,
      endpoint: new URL(browser.wsEndpoint()),
      version: { browser: info.product, protocol: info.protocolVersion, userAgent: info.userAgent },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
