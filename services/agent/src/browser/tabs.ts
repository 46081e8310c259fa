// The tabs of the run's browser: every page of every context, numbered once
// and for good, the active one (a tab that opens becomes it), and the
// top-level documents each commits (the billed pages).
import type { Browser, BrowserContext, Frame, Page, Request } from 'playwright-core';

/** What a tab's main frame has done, counted, so an action can wait for what it set off. */
export interface TabActivity {
  /** Main-frame navigation requests sent (redirects included). */
  requests: number;
  /** Main-frame commits, new documents and same-document moves alike. */
  commits: number;
  /** Main-frame navigation requests that failed. */
  failures: number;
}

interface Tab {
  number: number;
  activity: TabActivity;
  /** A navigation request was sent and its document has not committed yet. */
  awaitingDocument: boolean;
  detach: () => void;
}

/** URLs longer than this are recorded cut: they are billing records, not content. */
const MAX_URL_CHARS = 2048;

export const isWebUrl = (url: string): boolean => /^https?:\/\//i.test(url);

const isMainNavigation = (page: Page, request: Request): boolean => {
  try {
    return request.isNavigationRequest() && request.frame() === page.mainFrame();
  } catch {
    // A service worker's request has no frame.
    return false;
  }
};

export class Tabs {
  private readonly tabs = new Map<Page, Tab>();
  private readonly contexts = new Map<BrowserContext, (page: Page) => void>();
  /** Pages in the order they were active, the current one last. */
  private readonly history: Page[] = [];
  private navigations: string[] = [];
  private next = 1;
  /** Tabs opened since the driver started; an action waits on it for a popup. */
  opened = 0;

  constructor(private readonly browser: Browser) {
    this.scan(false);
  }

  /** Every open page in tab order (pages of contexts opened meanwhile adopted as new tabs). */
  pages(): Page[] {
    this.scan(true);
    return [...this.tabs.entries()].sort((a, b) => a[1].number - b[1].number).map(([page]) => page);
  }

  numberOf(page: Page): number {
    return this.tabs.get(page)?.number ?? 0;
  }

  activity(page: Page): TabActivity {
    return { ...(this.tabs.get(page)?.activity ?? { requests: 0, commits: 0, failures: 0 }) };
  }

  /** The active page: the last activated that is still open; a new page when none is. */
  async active(): Promise<Page> {
    this.scan(true);
    for (let i = this.history.length - 1; i >= 0; i--) {
      const page = this.history[i];
      if (page && this.tabs.has(page) && !page.isClosed()) return page;
    }
    const open = this.pages();
    const last = open[open.length - 1];
    if (last) {
      this.activate(last);
      return last;
    }
    const context = this.browser.contexts()[0] ?? (await this.browser.newContext());
    this.watchContext(context);
    const page = await context.newPage();
    this.adopt(page, true);
    return page;
  }

  byNumber(number: number): Page | undefined {
    return this.pages().find((page) => this.tabs.get(page)?.number === number);
  }

  activate(page: Page): void {
    const at = this.history.indexOf(page);
    if (at >= 0) this.history.splice(at, 1);
    this.history.push(page);
  }

  /** Top-level web documents committed since the last call. */
  takeNavigations(): string[] {
    const taken = this.navigations;
    this.navigations = [];
    return taken;
  }

  /** Stops listening to the browser. */
  detach(): void {
    for (const [context, listener] of this.contexts) context.off('page', listener);
    for (const tab of this.tabs.values()) tab.detach();
    this.contexts.clear();
    this.tabs.clear();
  }

  private scan(fresh: boolean): void {
    for (const context of this.browser.contexts()) {
      if (this.contexts.has(context)) continue;
      this.watchContext(context);
      for (const page of context.pages()) this.adopt(page, fresh);
    }
  }

  private watchContext(context: BrowserContext): void {
    if (this.contexts.has(context)) return;
    const listener = (page: Page) => this.adopt(page, true);
    context.on('page', listener);
    this.contexts.set(context, listener);
  }

  /** Numbers a page; a `fresh` one (opened while the driver runs) becomes active and its document counts. */
  private adopt(page: Page, fresh: boolean): void {
    if (this.tabs.has(page) || page.isClosed()) return;
    const tab: Tab = {
      number: this.next++,
      activity: { requests: 0, commits: 0, failures: 0 },
      awaitingDocument: false,
      detach: () => {},
    };
    const onRequest = (request: Request) => {
      if (!isMainNavigation(page, request)) return;
      tab.activity.requests++;
      tab.awaitingDocument = true;
    };
    const onFailed = (request: Request) => {
      if (isMainNavigation(page, request)) tab.activity.failures++;
    };
    // A same-document move (a hash, pushState) commits without a request: only a requested document counts.
    const onNavigated = (frame: Frame) => {
      if (frame !== page.mainFrame()) return;
      tab.activity.commits++;
      if (!tab.awaitingDocument) return;
      tab.awaitingDocument = false;
      this.record(frame.url());
    };
    const onClose = () => {
      tab.detach();
      this.tabs.delete(page);
    };
    page.on('request', onRequest);
    page.on('requestfailed', onFailed);
    page.on('framenavigated', onNavigated);
    page.on('close', onClose);
    tab.detach = () => {
      page.off('request', onRequest);
      page.off('requestfailed', onFailed);
      page.off('framenavigated', onNavigated);
      page.off('close', onClose);
    };
    this.tabs.set(page, tab);
    if (!fresh) return;
    this.opened++;
    this.activate(page);
    // A popup is handed over once its first document has committed: that one counts here.
    this.record(page.url());
  }

  private record(url: string): void {
    if (isWebUrl(url)) this.navigations.push(url.slice(0, MAX_URL_CHARS));
  }
}
