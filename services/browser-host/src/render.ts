import { ApiError } from '@wap/errors';
import { browserIdentity, versionOf } from '@wap/fetch';
import { browser as proto } from '@wap/proto';
import type { Browser, HTTPResponse, Page, PuppeteerLifeCycleEvent } from 'puppeteer-core';
import type { EgressProxy } from './egress/proxy.js';

const DESKTOP = {
  viewport: { width: 1366, height: 900, deviceScaleFactor: 1, isMobile: false, hasTouch: false },
};
const MOBILE = {
  viewport: { width: 412, height: 915, deviceScaleFactor: 2.625, isMobile: true, hasTouch: true },
  platform: 'Linux armv81',
};

// The identity of the Chromium really running (docs/decisions/0011-browser-identity.md), read once per browser.
const versions = new WeakMap<Browser, Promise<string>>();
async function identityOf(browser: Browser, mobile: boolean) {
  const version = versions.get(browser) ?? browser.version();
  versions.set(browser, version);
  return browserIdentity(mobile, versionOf(await version));
}

const WAIT_UNTIL: Record<number, PuppeteerLifeCycleEvent> = {
  [proto.WaitUntil.UNSPECIFIED]: 'load',
  [proto.WaitUntil.LOAD]: 'load',
  [proto.WaitUntil.DOM_CONTENT_LOADED]: 'domcontentloaded',
  [proto.WaitUntil.NETWORK_IDLE]: 'networkidle2',
};

/** Chromium's net errors that mean the page could not be reached. */
function unreachable(url: string, err: unknown, blocked: string[]): ApiError {
  const message = err instanceof Error ? err.message : String(err);
  const net = /net::(ERR_[A-Z_]+)/.exec(message)?.[1] ?? '';
  const reason =
    blocked.length > 0
      ? 'private_address'
      : /timeout|TIMED_OUT/i.test(message)
        ? 'timeout'
        : /NAME_NOT_RESOLVED/.test(net)
          ? 'dns'
          : /CERT|SSL/.test(net)
            ? 'tls'
            : /TOO_MANY_REDIRECTS/.test(net)
              ? 'too_many_redirects'
              : 'connect';
  return new ApiError('page_unreachable', { url, reason }, { cause: err });
}

async function runActions(page: Page, actions: proto.Action[], deadline: number) {
  for (const action of actions) {
    const left = Math.max(deadline - Date.now(), 1);
    const step = action.kind;
    switch (step.case) {
      case 'wait':
        if (step.value.selector) await page.waitForSelector(step.value.selector, { timeout: left });
        else await new Promise((r) => setTimeout(r, Math.min(step.value.milliseconds, left)));
        break;
      case 'click':
        await page.click(step.value.selector);
        break;
      case 'write':
        await page.keyboard.type(step.value.text);
        break;
      case 'press':
        await page.keyboard.press(step.value.key as never);
        break;
      case 'scroll':
        await page.evaluate(
          (direction, selector) => {
            const target = selector ? document.querySelector(selector) : document.scrollingElement;
            target?.scrollBy(0, (direction === 'up' ? -1 : 1) * window.innerHeight);
          },
          step.value.direction,
          step.value.selector,
        );
        break;
      default:
        break;
    }
  }
}

/**
 * Renders one page in its own browser context (no cookies, cache or storage
 * shared with any other render), through the egress proxy with the context's
 * own credentials, so bytes and refusals are this render's alone.
 */
export async function render(browser: Browser, egress: EgressProxy, req: proto.RenderRequest, signal: AbortSignal) {
  const started = Date.now();
  const timeout = req.timeoutMs > 0 ? req.timeoutMs : 30_000;
  const deadline = started + timeout;
  const tenant = egress.open();
  const context = await browser.createBrowserContext({ proxyServer: egress.url, proxyBypassList: ['<-loopback>'] });
  let tally = { bytes: 0, blocked: [] as string[] };
  try {
    const page = await context.newPage();
    signal.addEventListener('abort', () => void page.close().catch(() => undefined), { once: true });
    await page.authenticate({ username: tenant.username, password: tenant.password });
    const profile = req.mobile ? MOBILE : DESKTOP;
    const identity = await identityOf(browser, req.mobile);
    await page.setUserAgent({
      userAgent: identity.userAgent,
      userAgentMetadata: identity.metadata,
      ...(req.mobile ? { platform: MOBILE.platform } : {}),
    });
    await page.setViewport(profile.viewport);
    if (Object.keys(req.headers).length > 0) await page.setExtraHTTPHeaders(req.headers);
    page.setDefaultTimeout(timeout);

    let response: HTTPResponse | null;
    try {
      response = await page.goto(req.url, { waitUntil: WAIT_UNTIL[req.waitUntil] ?? 'load', timeout });
    } catch (err) {
      throw unreachable(req.url, err, tenant.close().blocked);
    }
    if (req.waitForSelector)
      await page.waitForSelector(req.waitForSelector, { timeout: Math.max(deadline - Date.now(), 1) });
    if (req.waitMs > 0)
      await new Promise((r) => setTimeout(r, Math.min(req.waitMs, Math.max(deadline - Date.now(), 0))));
    await runActions(page, req.actions, deadline);

    const html = await page.content();
    const screenshot = req.screenshot
      ? await page.screenshot({
          type: 'png',
          fullPage: req.fullPageScreenshot,
          captureBeyondViewport: req.fullPageScreenshot,
        })
      : undefined;
    const finalUrl = page.url();
    tally = tenant.close();
    // The document itself (or the hop it was redirected to) was refused by the
    // egress guard: the browser only saw the proxy's error answer.
    const documentHosts = [new URL(req.url).hostname, new URL(finalUrl).hostname];
    const refused = tally.blocked.some((b) => documentHosts.some((h) => b.startsWith(`${h} `)));
    if (refused && (response?.status() ?? 0) >= 400) {
      throw new ApiError('page_unreachable', { url: req.url, reason: 'private_address' });
    }
    return {
      finalUrl,
      status: response?.status() ?? 0,
      headers: response?.headers() ?? {},
      html,
      screenshot: screenshot ? new Uint8Array(screenshot) : new Uint8Array(),
      durationMs: Date.now() - started,
      proxyBytes: BigInt(tally.bytes),
      blockedRequests: tally.blocked,
    };
  } finally {
    tenant.close();
    await context.close().catch(() => undefined);
  }
}
