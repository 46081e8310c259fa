import { create } from '@bufbuild/protobuf';
import { ApiError } from '@wap/errors';
import { versionOf } from '@wap/fetch';
import { browser as proto } from '@wap/proto';
import type { Browser, HTTPResponse, Page, PuppeteerLifeCycleEvent } from 'puppeteer-core';
import type { SolverProvider } from '../captcha/provider.js';
import { type CaptchaReport, handleCaptchas } from '../captcha/solve.js';
import { userAgentOverride } from '../domain/browser-face.js';
import type { EgressProxy, EgressTally } from '../egress/proxy.js';
import type { FaceKeeper } from './face-keeper.js';
import type { RenderSession } from './render-session.js';

/** A phone's screen: a mobile render's page is emulated into it (a desktop render's is the pool's window). */
const MOBILE_VIEWPORT = { width: 412, height: 915, deviceScaleFactor: 2.625, isMobile: true, hasTouch: true };

// The version of the Chromium really running (docs/decisions/0011-browser-identity.md), read once per browser.
const versions = new WeakMap<Browser, Promise<string>>();
async function versionOfBrowser(browser: Browser): Promise<string | undefined> {
  const version = versions.get(browser) ?? browser.version();
  versions.set(browser, version);
  return versionOf(await version);
}

const WAIT_UNTIL: Record<number, PuppeteerLifeCycleEvent> = {
  [proto.WaitUntil.UNSPECIFIED]: 'load',
  [proto.WaitUntil.LOAD]: 'load',
  [proto.WaitUntil.DOM_CONTENT_LOADED]: 'domcontentloaded',
  [proto.WaitUntil.NETWORK_IDLE]: 'networkidle2',
};

/**
 * Chromium's net errors as the fetch engine's `page_unreachable` reasons
 * (libs/fetch/src/failure.ts): the same failure reads the same in both engines.
 */
function netErrorReason(net: string): string | undefined {
  if (/^ERR_(NAME_NOT_RESOLVED|NAME_RESOLUTION_FAILED|DNS_)/.test(net)) return 'dns';
  if (/TIMED_OUT$/.test(net)) return 'timeout';
  if (/^ERR_(CERT_|SSL_|BAD_SSL_)/.test(net) || net === 'ERR_CERTIFICATE_TRANSPARENCY_REQUIRED') return 'tls';
  if (net === 'ERR_TOO_MANY_REDIRECTS') return 'too_many_redirects';
  if (net === 'ERR_UNSAFE_REDIRECT' || net === 'ERR_BLOCKED_BY_RESPONSE') return 'blocked';
  if (
    /^ERR_(CONNECTION_|ADDRESS_|TUNNEL_CONNECTION_FAILED|EMPTY_RESPONSE|NETWORK_|INTERNET_DISCONNECTED)/.test(net) ||
    /^ERR_(SOCKET_NOT_CONNECTED|HTTP2_PROTOCOL_ERROR|INVALID_HTTP_RESPONSE|PROXY_CONNECTION_FAILED)$/.test(net)
  )
    return 'connect';
  return undefined;
}

/**
 * Why the page could not be reached: a refusal of the egress guard, a failure
 * the egress saw on the document's host (Chromium only sees the proxy's
 * error answer or a failed tunnel), or Chromium's own net error.
 */
function unreachable(url: string, err: unknown, tally: EgressTally): ApiError {
  const message = err instanceof Error ? err.message : String(err);
  const net = /net::(ERR_[A-Z0-9_]+)/.exec(message)?.[1] ?? '';
  const host = new URL(url).hostname;
  const reason =
    tally.blocked.length > 0
      ? 'private_address'
      : (tally.failed.find((f) => f.host === host)?.reason ??
        netErrorReason(net) ??
        (/timeout/i.test(message) ? 'timeout' : 'connect'));
  return new ApiError('page_unreachable', { url, reason }, { cause: err });
}

/** What a render keeps of its time for the page once its captcha is done (content, screenshot). */
const CAPTCHA_RESERVE_MS = 3_000;

const reportOf = (r: CaptchaReport): proto.CaptchaReport =>
  create(proto.CaptchaReportSchema, {
    found: r.found,
    outcome: r.outcome,
    kind: r.kind ?? '',
    method: r.method ?? '',
    durationMs: r.durationMs,
    blocked: r.blocked,
    reason: r.reason ?? '',
  });

/** A header name as HTTP allows it (a token), and a value without line breaks or NUL. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_HEADER_VALUE = /[\0\r\n]/;

/** Headers Chromium would refuse, as `bad_request` issues: the caller's mistake, never ours. */
export function headerIssues(headers: Record<string, string>): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) issues.push({ path: `headers.${name}`, message: 'not a valid header name' });
    else if (BAD_HEADER_VALUE.test(value))
      issues.push({ path: `headers.${name}`, message: 'a header value cannot hold line breaks or NUL' });
  }
  return issues;
}

/**
 * The page's HTML. A main frame swapped while it is read (a navigation still under way, as one a
 * captcha's answer sets off) is read again once the page's network is idle, twice at most.
 */
async function contentOf(page: Page): Promise<string> {
  for (let tries = 1; ; tries++) {
    try {
      return await page.content();
    } catch (err) {
      if (tries >= 3 || !/detached Frame|Execution context was destroyed/i.test(String(err))) throw err;
      await page.waitForNetworkIdle({ idleTime: 300, timeout: 3_000 }).catch(() => undefined);
    }
  }
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
 * `session`: the context's pages are recorded into it (docs/sessions.md,
 * "Scrapes"). `linger`: the context is closed (its recording flushed first,
 * the session ended after) once the answer is out, and `linger` is handed
 * that work; without it, before the answer. `faces`: the browser's face
 * keeper, which dresses a mobile render's context as a phone.
 */
export async function render(
  browser: Browser,
  egress: EgressProxy,
  req: proto.RenderRequest,
  signal: AbortSignal,
  {
    session,
    linger,
    faces,
    captchaSolver,
  }: {
    session?: RenderSession | undefined;
    linger?(done: Promise<unknown>): void;
    faces?: FaceKeeper | undefined;
    captchaSolver?: SolverProvider | undefined;
  } = {},
) {
  const started = Date.now();
  const timeout = req.timeoutMs > 0 ? req.timeoutMs : 30_000;
  const deadline = started + timeout;
  const issues = headerIssues(req.headers);
  if (issues.length > 0) throw new ApiError('bad_request', { issues });
  const tenant = egress.open();
  let context: Awaited<ReturnType<Browser['createBrowserContext']>>;
  try {
    context = await browser.createBrowserContext({ proxyServer: egress.url, proxyBypassList: ['<-loopback>'] });
  } catch (err) {
    void session?.end(browser.connected ? 'closed' : 'crashed', 0);
    throw err;
  }
  if (session && context.id) session.watch(context.id);
  const contextId = context.id;
  // Its every target a phone's, before its first script runs (face-keeper.ts).
  if (req.mobile && faces && contextId)
    faces.faceContext(contextId, userAgentOverride(await versionOfBrowser(browser), true));
  let tally: EgressTally = { bytes: 0, blocked: [], failed: [] };
  // A caller that gives up stops the page; once answered, the call ending is no reason to.
  let abandon: (() => void) | undefined;
  try {
    const page = await context.newPage();
    abandon = () => void page.close().catch(() => undefined);
    signal.addEventListener('abort', abandon, { once: true });
    await page.authenticate({ username: tenant.username, password: tenant.password });
    if (req.mobile) await page.setViewport(MOBILE_VIEWPORT);
    if (Object.keys(req.headers).length > 0)
      await page.setExtraHTTPHeaders(req.headers).catch((err: unknown) => {
        if (signal.aborted) throw err;
        // Whatever else Chromium refuses in a header is the caller's mistake too.
        throw new ApiError('bad_request', { issues: [{ path: 'headers', message: String(err) }] }, { cause: err });
      });
    page.setDefaultTimeout(timeout);

    let response: HTTPResponse | null;
    try {
      response = await page.goto(req.url, { waitUntil: WAIT_UNTIL[req.waitUntil] ?? 'load', timeout });
    } catch (err) {
      throw unreachable(req.url, err, tenant.close());
    }
    if (req.waitForSelector)
      await page.waitForSelector(req.waitForSelector, { timeout: Math.max(deadline - Date.now(), 1) });
    if (req.waitMs > 0)
      await new Promise((r) => setTimeout(r, Math.min(req.waitMs, Math.max(deadline - Date.now(), 0))));
    // Before the actions: they are for the page the captcha guards. Its time is the render's own, unbilled beyond it.
    const captcha = await handleCaptchas(page, {
      provider: captchaSolver,
      deadline: deadline - CAPTCHA_RESERVE_MS,
      status: response?.status() ?? 0,
      signal,
    });
    if (captcha.outcome !== 'none')
      await page.waitForNetworkIdle({ idleTime: 300, timeout: 3_000 }).catch(() => undefined);
    // The recording starts before the actions, so they are in it step by step, not only what they left.
    if (session && req.actions.length > 0) await session.flush();
    await runActions(page, req.actions, deadline);

    const html = await contentOf(page);
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
    // The egress could not reach the document's host: its error answer is not the site's.
    const failed = tally.failed.find((f) => documentHosts.includes(f.host));
    if (failed && (response?.status() ?? 0) >= 400) {
      throw new ApiError('page_unreachable', { url: req.url, reason: failed.reason });
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
      sessionId: session?.id ?? '',
      ...(captcha.outcome !== 'none' && { captcha: reportOf(captcha) }),
    };
  } finally {
    if (abandon) signal.removeEventListener('abort', abandon);
    const { bytes } = tenant.close();
    const close = async () => {
      // The page as it was answered (a failed page's too) reaches its recording while it still lives.
      if (session && browser.connected && !signal.aborted) await session.flush();
      await context.close().catch(() => undefined);
      if (contextId) faces?.forgetContext(contextId);
      // Its last chunks and its row go out on their own: the browser's place is free meanwhile.
      void session?.end(browser.connected ? 'closed' : 'crashed', bytes);
    };
    if (linger) linger(close());
    else await close();
  }
}
