// The run's browser as the loop drives it (types.ts), over a Playwright
// connection: the active tab scanned into the model's indexed list, and the
// model's actions carried out on exactly the elements that list showed.
import { createHash } from 'node:crypto';
import { extract as extractPage } from '@wap/extract';
import type { Browser, ElementHandle, Frame, Page } from 'playwright-core';
import { hostOf } from '../domain/rules/domains.js';
import {
  ACTION_TIMEOUT_MS,
  attachFile,
  brief,
  click,
  type Done,
  plain,
  scrollElement,
  select,
  type,
} from './actions.js';
import { type ElementList, renderList } from './element-list.js';
import {
  type Extractor,
  extractPart,
  goBack,
  NAVIGATION_TIMEOUT_MS,
  navigate,
  type Result,
  scrollPage,
} from './page-actions.js';
import { type PageScan, releaseAll, type ScanHandle, scanPage, within } from './scan.js';
import { Tabs } from './tabs.js';
import type {
  ActionOutcome,
  BrowserAction,
  BrowserDriver,
  CaptchaOutcome,
  PageState,
  RunFile,
  TabState,
} from './types.js';

export type { Extractor };

export interface DriverOptions {
  /** Default: @wap/extract's markdown, on the calling thread (pass its ExtractPool's to keep big pages off it). */
  extract?: Extractor;
}

const MAX_LIST_CHARS = 40_000;
const MAX_WAIT_SECONDS = 10;
/**
 * After an action, the page gets a frame and a task turn to run what the action set off (its
 * handlers, a navigation, a new tab), then this long for the browser's events of it to arrive.
 */
const GRACE_MS = 10;
/** The most a frame may take to come (a page busy in a script, a tab in the background). */
const FRAME_WAIT_MS = 300;
/** The most a link that targets another tab waits for that tab. */
const TAB_WAIT_MS = 3_000;
/** The most a form's submission waits for its request to begin (its own handler may hold it back). */
const SUBMIT_WAIT_MS = 1_000;

/** What an action is likely to set off that the driver waits to begin. */
type Expected = 'tab' | 'document' | 'nothing';
const START_WAIT_MS: Record<Expected, number> = { tab: TAB_WAIT_MS, document: SUBMIT_WAIT_MS, nothing: GRACE_MS };
const SMALL_TIMEOUT_MS = 2000;

const defaultExtract: Extractor = (html, url) => extractPage(html, url, { formats: ['markdown'] }).markdown;

/** The last observation: what its indices point at, and what pageChanged compares with. */
interface Observation {
  page: Page;
  url: string;
  keys: string[];
  targets: Array<{ source: ScanHandle; slot: number }>;
  handles: ScanHandle[];
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
}

/** Whether clicking the element follows a link or submits a form into another tab (target=_blank or a named one). */
/**
 * What an action on the element is likely to set off, and so how long the driver waits for it to begin:
 * a tab (a link or form aimed at another), a new document (a form's submission, which the browser asks
 * for in a later task, or once the form's own handler is done: a captcha's token, a check with the
 * server), or nothing it need wait for. `enter` is the key pressed in a field, which submits its form.
 */
export async function setsOff(element: ElementHandle<Element>, how: 'click' | 'enter'): Promise<Expected> {
  const expected = element.evaluate((el, how) => {
    const link = el.closest('a[target], area[target]');
    const submitter =
      (el instanceof HTMLButtonElement && el.type === 'submit') ||
      (el instanceof HTMLInputElement && (el.type === 'submit' || el.type === 'image'));
    const form =
      el instanceof HTMLButtonElement || el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement
        ? el.form
        : null;
    // A form the browser will not send (a required field empty, a pattern unmet) asks for no document:
    // read without running its checks, which would fire its invalid events a second time.
    const validated =
      form !== null && !form.noValidate && !((el as HTMLButtonElement | HTMLInputElement).formNoValidate ?? false);
    const sendable = form !== null && !(validated && form.matches(':invalid'));
    const submits = sendable && (how === 'enter' ? !(el instanceof HTMLTextAreaElement) : submitter);
    const target = (
      (how === 'click' ? link?.getAttribute('target') : undefined) ??
      (submits ? form?.getAttribute('target') : undefined) ??
      ''
    )
      .trim()
      .toLowerCase();
    if (target !== '' && !['_self', '_parent', '_top'].includes(target)) return 'tab';
    return submits ? 'document' : 'nothing';
  }, how);
  return within(expected, FRAME_WAIT_MS, 'the page').catch(() => 'nothing' as const);
}

/**
 * The fields that keep a form from being sent by a click of `element`, its submit button: those the
 * browser finds invalid (a required one empty, a pattern unmet), named as a person reads them (their
 * label, aria-label, placeholder or name), at most ten; none when the click is no such send.
 */
export async function keptUnsent(element: ElementHandle<Element>): Promise<string[]> {
  const names = element.evaluate((el) => {
    const submitter =
      (el instanceof HTMLButtonElement && el.type === 'submit') ||
      (el instanceof HTMLInputElement && (el.type === 'submit' || el.type === 'image'));
    const form = submitter ? (el as HTMLButtonElement | HTMLInputElement).form : null;
    if (!form || form.noValidate || (el as HTMLButtonElement).formNoValidate || !form.matches(':invalid')) return [];
    const nameOf = (field: Element) => {
      const control = field as HTMLInputElement;
      const label = Array.from(control.labels ?? [], (l) => l.textContent ?? '').join(' ');
      return (field.getAttribute('aria-label') || label || control.placeholder || control.name || '')
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, 60);
    };
    return Array.from(form.querySelectorAll(':invalid'))
      .filter((field) => field !== form && !(field instanceof HTMLFieldSetElement))
      .map(nameOf)
      .filter(Boolean)
      .slice(0, 10);
  });
  const found = await within(names, FRAME_WAIT_MS, 'the page').catch(() => [] as string[]);
  return Array.isArray(found) ? found.filter((n): n is string => typeof n === 'string') : [];
}

/** The element that has the focus, inside shadow roots too; undefined when it is the body or none. */
async function focusedElement(page: Page): Promise<ElementHandle<Element> | undefined> {
  const handle = await within(
    page.evaluateHandle(() => {
      let el = document.activeElement;
      while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
      return el && el !== document.body ? el : null;
    }),
    FRAME_WAIT_MS,
    'the page',
  ).catch(() => undefined);
  const element = handle?.asElement() ?? undefined;
  if (!element) await handle?.dispose();
  return element as ElementHandle<Element> | undefined;
}

/** Resolves once the page drew a frame and ran a task after it (or could not: it navigated, or it is busy). */
async function nextFrame(page: Page): Promise<void> {
  const frame = page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  await within(frame, FRAME_WAIT_MS, 'the page').catch(() => {});
}

/** The attribute a field a secret went into carries (the recorder masks such fields). */
const PRIVATE = 'data-private';
/** Input types a secret may be typed into. */
const FILLABLE = ['text', 'password', 'email', 'tel', 'number', 'search', 'url', ''];

const sameKeys = (a: string[], b: string[]): boolean => a.length === b.length && a.every((key, i) => key === b[i]);

/**
 * The hosts of the frame showing `element` and of every frame above it, innermost first, as the
 * browser reports their URLs (a page cannot rewrite them); a string when one has no host of its own
 * (about:blank, srcdoc, data: or blob: take their origin from elsewhere, which a URL does not say).
 */
async function frameHostsOf(element: ElementHandle<Element>): Promise<string[] | string> {
  const own = await within(element.ownerFrame(), ACTION_TIMEOUT_MS, 'the page');
  if (!own) return 'in no frame';
  const hosts: string[] = [];
  for (let frame: Frame | null = own; frame; frame = frame.parentFrame()) {
    const host = hostOf(frame.url());
    if (!host) return `in a frame without a host of its own (${plain(frame.url(), 60)})`;
    hosts.push(host);
  }
  return hosts;
}

export class PlaywrightDriver implements BrowserDriver {
  private readonly tabs: Tabs;
  private readonly extractor: Extractor;
  private last: Observation | undefined;

  constructor(browser: Browser, options: DriverOptions = {}) {
    this.tabs = new Tabs(browser);
    this.extractor = options.extract ?? defaultExtract;
  }

  async observe(options: { screenshot?: boolean } = {}): Promise<PageState> {
    const page = await this.tabs.active();
    const scan = await this.scan(page);
    const url = page.url();
    const previous = this.last;
    const sameView = previous?.page === page && previous.url === url;
    const list: ElementList<ScanHandle> =
      typeof scan === 'string'
        ? { elements: scan, plain: scan, keys: [], targets: [], outline: [] }
        : renderList(scan.root, sameView ? new Set(previous.keys) : undefined, MAX_LIST_CHARS);
    if (previous) releaseAll(previous.handles);
    const handles = typeof scan === 'string' ? [] : scan.handles;
    this.last = { page, url, keys: list.keys, targets: list.targets, handles };
    const [title, tabs, screenshot] = await Promise.all([
      this.titleOf(page),
      this.tabStates(page),
      options.screenshot ? this.screenshotOf(page) : undefined,
    ]);
    return {
      url,
      title,
      tabs,
      scroll: typeof scan === 'string' ? { above: 0, below: 0 } : scan.scroll,
      elements: list.elements,
      count: list.targets.length,
      outline: list.outline,
      ...(typeof scan !== 'string' && scan.modal && { modal: true }),
      ...(screenshot && { screenshot }),
      fingerprint: createHash('sha256').update(`${url}\n${list.plain}`).digest('hex'),
    };
  }

  async act(
    action: BrowserAction,
    files: (handle: string) => Promise<RunFile | undefined>,
    options: { detectChange?: boolean } = {},
  ): Promise<ActionOutcome> {
    let result: Result;
    try {
      result = await this.run(action, files);
    } catch (error) {
      result = { ok: false, message: brief(error), acted: true };
    }
    const outcome: ActionOutcome = { ok: result.ok, message: result.message };
    if (options.detectChange !== false) outcome.pageChanged = result.acted ? await this.changed() : false;
    if (result.extracted !== undefined) outcome.extracted = result.extracted;
    if (result.unsent?.length) outcome.unsent = result.unsent;
    return outcome;
  }

  async frameHosts(index: number): Promise<string[] | string> {
    const found = await this.resolve(index);
    if (!('element' in found)) return found.message;
    try {
      return await frameHostsOf(found.element);
    } finally {
      await found.element.dispose().catch(() => {});
    }
  }

  async fillSecret(index: number, value: string, hosts: string[]): Promise<ActionOutcome> {
    const page = await this.tabs.active();
    let result: Result;
    try {
      result = await this.onElement(index, async (element) => {
        // The frames were checked against the secret's domains: a frame that navigated since is not filled.
        const now = await frameHostsOf(element);
        if (typeof now === 'string' || !sameKeys(now, hosts))
          return { ok: false, message: `[${index}] is in frames that changed since they were checked: observe again` };
        return this.settled(page, async () => {
          const kind = await within(
            element.evaluate(
              (el, { attribute, fillable }) => {
                if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) return 'not a field';
                if (el instanceof HTMLInputElement && !fillable.includes(el.type)) return `a ${el.type} input`;
                // Marked before the value goes in: the recorder masks it, the element list and screenshots hide it.
                el.setAttribute(attribute, '');
                return 'ok';
              },
              { attribute: PRIVATE, fillable: FILLABLE },
            ),
            ACTION_TIMEOUT_MS,
            'the page',
          );
          if (kind !== 'ok') return { ok: false, message: `[${index}] is ${kind}: a secret goes into a text field` };
          await element.fill(value, { timeout: ACTION_TIMEOUT_MS });
          return { ok: true, message: `filled [${index}]` };
        });
      });
    } catch (error) {
      // Playwright's message may quote what it typed: say only what failed.
      result = {
        ok: false,
        message: `[${index}] could not be filled (${brief(error).split('(')[0]?.trim()})`,
        acted: true,
      };
    }
    return { ok: result.ok, message: result.message };
  }

  async formRole(index: number): Promise<'submit' | 'field' | null> {
    const target = this.last?.targets[index - 1];
    if (!target) return null;
    return within(
      target.source.evaluate((scan, slot): 'submit' | 'field' | null => {
        const el = scan.elements[slot] as Element | undefined;
        if (!(el instanceof HTMLButtonElement || el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement))
          return null;
        if (!el.form) return null;
        return el.type === 'submit' || el.type === 'image' ? 'submit' : 'field';
      }, target.slot),
      ACTION_TIMEOUT_MS,
      'the page',
    ).catch(() => null);
  }

  takeNavigations(): string[] {
    return this.tabs.takeNavigations();
  }

  /** Asks the host to solve the active tab's captcha, over its own CDP domain; a host without one answers none. */
  async solveCaptcha(): Promise<CaptchaOutcome> {
    const page = await this.tabs.active();
    const cdp = await page.context().newCDPSession(page);
    try {
      return (await cdp.send('Captcha.solve' as never)) as unknown as CaptchaOutcome;
    } catch {
      return { found: [], outcome: 'none', blocked: false };
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  }

  /** Lets go of the pages (listeners, handles); the connection stays its maker's to close or keep. */
  async close(): Promise<void> {
    this.tabs.detach();
    if (this.last) releaseAll(this.last.handles);
    this.last = undefined;
  }

  private async run(action: BrowserAction, files: (handle: string) => Promise<RunFile | undefined>): Promise<Result> {
    const page = await this.tabs.active();
    switch (action.action) {
      case 'navigate':
        return navigate(page, action.url);
      case 'go_back':
        return goBack(page);
      case 'switch_tab': {
        const tab = this.tabs.byNumber(action.tab);
        if (!tab) return { ok: false, message: `no tab ${action.tab}`, acted: false };
        this.tabs.activate(tab);
        await within(tab.bringToFront(), SMALL_TIMEOUT_MS, 'the tab').catch(() => {});
        return { ok: true, message: `switched to tab ${action.tab}: ${plain(tab.url(), 200)}`, acted: true };
      }
      case 'wait': {
        const seconds = Math.min(MAX_WAIT_SECONDS, Math.max(0, Number(action.seconds) || 0));
        await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        return { ok: true, message: `waited ${seconds} s`, acted: true };
      }
      case 'press': {
        if (typeof action.key !== 'string' || !/^[\x21-\x7e]{1,40}$/.test(action.key)) {
          return {
            ok: false,
            message: 'press needs a key name, e.g. Enter, Escape, ArrowDown, Control+A',
            acted: false,
          };
        }
        const key = action.key;
        // Enter in a form's field sends the form: its document is waited for as a submit button's is.
        const focused = key === 'Enter' ? await focusedElement(page) : undefined;
        const expected = focused ? await setsOff(focused, 'enter').finally(() => focused.dispose()) : 'nothing';
        return this.settled(
          page,
          async () => {
            await within(page.keyboard.press(key), ACTION_TIMEOUT_MS, 'the page');
            return { ok: true, message: `pressed ${key}` };
          },
          expected,
        );
      }
      case 'scroll': {
        const down = action.direction !== 'up';
        if (action.index === undefined) return { ...(await scrollPage(page, down)), acted: true };
        return this.onElement(action.index, (element) => scrollElement(element, action.index ?? 0, down));
      }
      case 'extract':
        return extractPart(page, String(action.query ?? ''), this.extractor);
      case 'click':
        return this.onElement(action.index, async (element) => {
          const unsent = await keptUnsent(element);
          const done = await this.settled(page, () => click(element, action.index), await setsOff(element, 'click'));
          return unsent.length ? { ...done, unsent } : done;
        });
      case 'type':
        return this.onElement(action.index, async (element) =>
          this.settled(
            page,
            () => type(element, action.index, action.text, action.submit === true),
            action.submit === true ? await setsOff(element, 'enter') : 'nothing',
          ),
        );
      case 'select':
        return this.onElement(action.index, (element) =>
          this.settled(page, () => select(element, action.index, action.option)),
        );
      case 'attach_file': {
        const file = typeof action.file === 'string' ? await files(action.file) : undefined;
        if (!file)
          return { ok: false, message: `no file "${plain(String(action.file), 80)}" in this run`, acted: false };
        return this.onElement(action.index, (element) =>
          this.settled(page, () => attachFile(element, action.index, file)),
        );
      }
      default:
        return { ok: false, message: 'unknown action', acted: false };
    }
  }

  /** Runs an element action on element `index` of the last observation. */
  private async onElement(
    index: number,
    act: (element: ElementHandle<Element>) => Promise<Done | Result>,
  ): Promise<Result> {
    const found = await this.resolve(index);
    if (!('element' in found)) return found;
    try {
      return { acted: true, ...(await act(found.element)) };
    } finally {
      await found.element.dispose().catch(() => {});
    }
  }

  /** Element `index` of the last observation, still in its page (the caller disposes of it), or why not. */
  private async resolve(index: number): Promise<{ element: ElementHandle<Element> } | Result> {
    const last = this.last;
    if (!last || !Number.isInteger(index) || index < 1 || index > last.targets.length) {
      const known = last?.targets.length ? ` (it has 1 to ${last.targets.length})` : '';
      return { ok: false, message: `no element [${index}] in the last observation${known}`, acted: false };
    }
    if (last.page !== (await this.tabs.active())) {
      return { ok: false, message: `[${index}] is on another tab: observe this one first`, acted: false };
    }
    const target = last.targets[index - 1]!;
    const found = await within(
      target.source.evaluateHandle((scan, slot) => scan.elements[slot], target.slot),
      ACTION_TIMEOUT_MS,
      'the page',
    );
    const element = found.asElement() as ElementHandle<Element> | null;
    if (
      !element ||
      !(await within(
        element.evaluate((el) => el.isConnected),
        ACTION_TIMEOUT_MS,
        'the page',
      ))
    ) {
      await found.dispose().catch(() => {});
      return { ok: false, message: `[${index}] is gone: the page changed since it was observed`, acted: true };
    }
    return { element };
  }

  /** Runs an action, then waits for what it set off: a navigation to its new document, a new tab. */
  private async settled(page: Page, act: () => Promise<Done>, expected: Expected = 'nothing'): Promise<Result> {
    const before = this.tabs.activity(page);
    const opened = this.tabs.opened;
    const done = await act();
    const navigating = () => this.tabs.activity(page).requests > before.requests;
    const started = () => navigating() || this.tabs.opened > opened || page.isClosed();
    if (!started()) await nextFrame(page);
    // A tab comes once the browser has made it, a submitted form's document once its task has run: later than a frame.
    await until(started, START_WAIT_MS[expected]);
    if (navigating()) {
      await until(() => {
        const now = this.tabs.activity(page);
        return now.commits > before.commits || now.failures > before.failures || page.isClosed();
      }, NAVIGATION_TIMEOUT_MS);
      if (!page.isClosed())
        await page.waitForLoadState('domcontentloaded', { timeout: NAVIGATION_TIMEOUT_MS }).catch(() => {});
    }
    if (this.tabs.opened > opened) {
      const tab = await this.tabs.active();
      await tab.waitForLoadState('domcontentloaded', { timeout: NAVIGATION_TIMEOUT_MS }).catch(() => {});
      return { ...done, message: `${done.message}; it opened tab ${this.tabs.numberOf(tab)}, now active`, acted: true };
    }
    return { ...done, acted: true };
  }

  /** Whether the tab, its URL or its element set differs from the last observation. */
  private async changed(): Promise<boolean> {
    const last = this.last;
    if (!last) return true;
    const page = await this.tabs.active();
    if (page !== last.page || page.url() !== last.url) return true;
    let scan: PageScan;
    try {
      scan = await scanPage(page);
    } catch {
      return true;
    }
    releaseAll(scan.handles);
    return !sameKeys(renderList(scan.root, undefined, MAX_LIST_CHARS).keys, last.keys);
  }

  /** The page's scan, tried again once a new document is there; what went wrong when it cannot be had. */
  private async scan(page: Page): Promise<PageScan | string> {
    try {
      return await scanPage(page);
    } catch {
      await page.waitForLoadState('domcontentloaded', { timeout: NAVIGATION_TIMEOUT_MS }).catch(() => {});
    }
    try {
      return await scanPage(page);
    } catch (error) {
      return `(the page did not answer: ${brief(error)})`;
    }
  }

  private async titleOf(page: Page): Promise<string> {
    const title = await within(page.title(), SMALL_TIMEOUT_MS, 'the tab').catch(() => '');
    return plain(title, 200);
  }

  private async tabStates(active: Page): Promise<TabState[]> {
    return Promise.all(
      this.tabs.pages().map(async (page) => ({
        tab: this.tabs.numberOf(page),
        url: page.url(),
        title: await this.titleOf(page),
        active: page === active,
      })),
    );
  }

  private async screenshotOf(page: Page): Promise<string | undefined> {
    // Fields a secret was filled into are painted over: a vision model never reads one.
    const png = await page
      .screenshot({ type: 'png', timeout: NAVIGATION_TIMEOUT_MS, mask: [page.locator(`[${PRIVATE}]`)] })
      .catch(() => undefined);
    return png?.toString('base64');
  }
}
