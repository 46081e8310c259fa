// The host's own CDP sessions on a session browser's pages while a person
// drives it (docs/sessions.md, "Human control"): one per page, the ones that
// open meanwhile included (auto-attach, waiting for the debugger, so a new
// tab's first navigation is seen). Each intercepts its page's top-level
// document requests (Fetch, Document only) and aborts those to another site
// than the control link's: a click on a link elsewhere, a redirect there, a
// script sending the tab away. Frames of other sites (iframes) are let
// through. The tab the person drives gets a screencast of its own, faster
// than the recording's, for the live view only. Everything ends with the
// attachment: the client's and the recorder's CDP sessions never see it.
import { refusedHost, sameSite } from '@wap/events';
import type { Browser, CDPSession } from 'puppeteer-core';
import { type ScreenFrame, startScreencast } from '../recording/screencast.js';

/** The driven tab's frames, one per this many milliseconds at most: smooth enough to point and click. */
export const CONTROL_FRAME_MS = 100;

interface Paused {
  requestId: string;
  frameId: string;
  resourceType: string;
  request: { url: string };
}

export class ControlAttachment {
  /** Each page's CDP session by target id, once its guard is on (undefined when it could not be). */
  private readonly pages = new Map<string, Promise<CDPSession | undefined>>();
  /** Hosts the guard kept a tab from since they were last taken. */
  private blockedHosts: string[] = [];
  private active: { targetId: string; stopScreencast: () => void } | undefined;
  private closed = false;

  private constructor(
    private readonly root: CDPSession,
    /** The site pages may go to: changing it takes effect at the next request. */
    public site: string,
    private readonly frames: { tabOf(targetId: string): number; emit(frame: ScreenFrame): void },
  ) {}

  static async open(
    browser: Browser,
    site: string,
    frames: { tabOf(targetId: string): number; emit(frame: ScreenFrame): void },
  ): Promise<ControlAttachment> {
    const root = await browser.target().createCDPSession();
    const attachment = new ControlAttachment(root, site, frames);
    root.on('Target.attachedToTarget', (p: unknown) => {
      const e = p as { sessionId: string; targetInfo: { type: string; targetId: string }; waitingForDebugger: boolean };
      const session = root.connection()?.session(e.sessionId);
      if (!session) return;
      if (e.targetInfo.type !== 'page' || attachment.closed) {
        if (e.waitingForDebugger) session.send('Runtime.runIfWaitingForDebugger').catch(() => undefined);
        return;
      }
      const guarded = attachment.guard(session, e.targetInfo.targetId);
      attachment.pages.set(e.targetInfo.targetId, guarded);
      void guarded.finally(() => {
        if (e.waitingForDebugger) session.send('Runtime.runIfWaitingForDebugger').catch(() => undefined);
      });
    });
    root.on('Target.detachedFromTarget', (p: unknown) => {
      const { targetId } = p as { targetId?: string };
      if (targetId) attachment.pages.delete(targetId);
    });
    // Attaches to the pages there are (before it answers) and to each one that opens, paused until guarded.
    await root.send('Target.setAutoAttach', {
      autoAttach: true,
      waitForDebuggerOnStart: true,
      flatten: true,
      filter: [{ type: 'page', exclude: false }],
    });
    return attachment;
  }

  /** Intercepts the page's document requests; the request is let go or aborted, never left waiting. */
  private async guard(session: CDPSession, targetId: string): Promise<CDPSession | undefined> {
    session.on('Fetch.requestPaused', (p: unknown) => {
      const e = p as Paused;
      // A page target's main frame has the target's id: only its own navigations are kept on the site.
      if (e.frameId === targetId && e.resourceType === 'Document' && !sameSite(e.request.url, this.site)) {
        if (this.blockedHosts.length < 16) this.blockedHosts.push(refusedHost(e.request.url));
        session.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'Aborted' }).catch(() => undefined);
      } else session.send('Fetch.continueRequest', { requestId: e.requestId }).catch(() => undefined);
    });
    return session
      .send('Fetch.enable', { patterns: [{ urlPattern: '*', resourceType: 'Document', requestStage: 'Request' }] })
      .then(
        () => session,
        () => undefined,
      );
  }

  /** The page's CDP session, once it is guarded; undefined when the page is not (or no longer) open. */
  page(targetId: string): Promise<CDPSession | undefined> {
    return this.pages.get(targetId) ?? Promise.resolve(undefined);
  }

  /** Brings the tab to the front (a tab that opened meanwhile may have taken it) and moves the fast screencast to it. */
  async activate(targetId: string, session: CDPSession): Promise<void> {
    await this.root.send('Target.activateTarget', { targetId });
    await session.send('Page.bringToFront');
    if (this.active?.targetId === targetId) return;
    this.active?.stopScreencast();
    const tab = this.frames.tabOf(targetId);
    this.active = { targetId, stopScreencast: startScreencast(session, tab, CONTROL_FRAME_MS, this.frames.emit) };
  }

  /** The tab's URL now (from the browser, not the page). */
  async url(targetId: string): Promise<string | undefined> {
    const info = await this.root.send('Target.getTargetInfo', { targetId }).catch(() => undefined);
    return info?.targetInfo.url;
  }

  /** The hosts kept out since the last call. */
  takeBlocked(): string[] {
    const hosts = [...new Set(this.blockedHosts)];
    this.blockedHosts = [];
    return hosts;
  }

  /** Stops attaching, lets every page go (their requests are no longer intercepted) and detaches. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.active?.stopScreencast();
    await this.root
      .send('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false })
      .catch(() => undefined);
    await Promise.all([...this.pages.values()].map(async (s) => (await s)?.detach().catch(() => undefined)));
    this.pages.clear();
    await this.root.detach().catch(() => undefined);
  }
}
