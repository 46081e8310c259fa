// The Captcha domain a /connect client speaks (docs/connect.md, "Captchas"),
// answered by the host, never by Chromium (cdp-filter.ts hands its commands
// over), as Browserless answers its own domain:
//   Captcha.enable   events from now on: Captcha.found {targetId, kinds} when
//                    a page of the session loads showing one
//   Captcha.disable
//   Captcha.solve    {targetId?, timeoutMs?}: the page of the command's
//                    session (or targetId) solved; answers the report
//                    {found, outcome, kind, method, durationMs, blocked, reason}
//                    and sends Captcha.solving, then .solved or .failed
// Events go on the CDP session the enabling (or solving) command came on,
// as a page session's events do in Browserless. Never metered.
import type { Browser, CDPSession, Target } from 'puppeteer-core';
import type { Command } from '../sessions/cdp-filter.js';
import { findCaptchas } from './detect.js';
import type { SolverProvider } from './provider.js';
import { handleCaptchas } from './solve.js';

/** How long Captcha.solve works at most unless asked for less. */
const SOLVE_TIMEOUT_MS = 120_000;

const idOf = (target: Target): string => (target as unknown as { _targetId: string })._targetId;
/** A web page of the session's: never the recorder extension's own pages (cdp-filter.ts hides them). */
const isWebPage = (target: Target): boolean =>
  target.type() === 'page' && !target.url().startsWith('chrome-extension://');

export class CaptchaDomain {
  private enabled = false;
  /** Where Captcha.found goes: the session Captcha.enable came on (undefined: the browser's). */
  private foundTo: string | undefined;
  private readonly watched = new Map<string, CDPSession>();
  private readonly onTarget = (target: Target) => void this.watch(target);
  private closed = false;

  constructor(
    private readonly browser: Browser,
    private readonly provider: SolverProvider | undefined,
    /** Sends the client a message (an answer or an event). */
    private readonly send: (text: string) => void,
  ) {}

  private event(method: string, params: object, sessionId: string | undefined): void {
    this.send(JSON.stringify({ method: `Captcha.${method}`, params, ...(sessionId !== undefined && { sessionId }) }));
  }

  /** The answer to a client's Captcha command. */
  async command(command: Command, targetId: string | undefined): Promise<string> {
    const answer = (body: object) =>
      JSON.stringify({
        id: command.id,
        ...body,
        ...(command.sessionId !== undefined && { sessionId: command.sessionId }),
      });
    const params = command.params ?? {};
    switch (command.method) {
      case 'Captcha.enable':
        this.foundTo = command.sessionId;
        if (!this.enabled) {
          this.enabled = true;
          this.browser.on('targetcreated', this.onTarget);
          await Promise.all(this.browser.targets().map((t) => this.watch(t)));
        }
        return answer({ result: {} });
      case 'Captcha.disable':
        this.stopWatching();
        return answer({ result: {} });
      case 'Captcha.solve': {
        const id = typeof params.targetId === 'string' ? params.targetId : targetId;
        const target = this.browser.targets().find((t) => idOf(t) === id && isWebPage(t));
        if (!id || !target)
          return answer({
            error: { code: -32602, message: 'No page target: name targetId or send it on a page session' },
          });
        const timeout =
          typeof params.timeoutMs === 'number' && params.timeoutMs > 0
            ? Math.min(params.timeoutMs, SOLVE_TIMEOUT_MS)
            : SOLVE_TIMEOUT_MS;
        const report = await handleCaptchas(target, {
          provider: this.provider,
          deadline: Date.now() + timeout,
          events: (e) => {
            // Captcha.found is the page's, sent when it loads (with Captcha.enable): a solve tells the rest.
            if (e.type === 'found') return;
            const { type, ...rest } = e;
            this.event(type, { targetId: id, ...rest }, command.sessionId);
          },
        });
        return answer({ result: report });
      }
    }
    return answer({ error: { code: -32601, message: `'${command.method}' wasn't found` } });
  }

  private async watch(target: Target): Promise<void> {
    if (!isWebPage(target) || this.watched.has(idOf(target)) || this.closed) return;
    const targetId = idOf(target);
    const cdp = await target.createCDPSession().catch(() => undefined);
    if (!cdp) return;
    if (!this.enabled || this.closed) {
      await cdp.detach().catch(() => undefined);
      return;
    }
    this.watched.set(targetId, cdp);
    cdp.on('Page.loadEventFired', () => {
      void findCaptchas(target)
        .then((kinds) => {
          if (kinds.length > 0 && this.enabled) this.event('found', { targetId, kinds }, this.foundTo);
        })
        .catch(() => undefined);
    });
    await cdp.send('Page.enable').catch(() => undefined);
  }

  private stopWatching(): void {
    this.enabled = false;
    this.browser.off('targetcreated', this.onTarget);
    for (const cdp of this.watched.values()) void cdp.detach().catch(() => undefined);
    this.watched.clear();
  }

  /** The client is gone. */
  close(): void {
    this.closed = true;
    this.stopWatching();
  }
}
