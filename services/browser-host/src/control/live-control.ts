// A person driving a session's browser (docs/sessions.md, "Human control"):
// the host answers the batches the gateway forwards on the bus, after
// checking them again with the same schema (a message on the bus is not
// trusted for being there), and dispatches them on its own CDP sessions to
// the tab they name: mouse, wheel, keys, text, navigation on the link's site,
// history back. Batches run one at a time, in the order they came. While
// batches come, and CONTROL_IDLE_MS after the last one, the tabs are kept on
// the site (control/attachment.ts); a `release` ends that at once.

import {
  type ControlAction,
  type ControlReply,
  type ControlRequest,
  controlRequest,
  refusedHost,
  sameSite,
} from '@wap/events';
import type { Logger } from '@wap/log';
import type { Browser, CDPSession } from 'puppeteer-core';
import type { ScreenFrame } from '../recording/screencast.js';
import { ControlAttachment } from './attachment.js';
import { typedText, virtualKeyCode } from './keys.js';

/** The guard and the fast screencast stay this long after the last batch. */
export const CONTROL_IDLE_MS = 15_000;
/** A batch's time on the host, at most: past it the rest is dropped and the answer is `unresponsive` (a page stuck in a dialog). */
export const BATCH_BUDGET_MS = 5_000;
/** A navigation is waited for this long (until its response starts); a slower one goes on loading. */
const NAVIGATE_WAIT_MS = 3_000;

/** The session's tabs, numbered as its recording and frames number them. */
export interface TabDirectory {
  tabOf(targetId: string): number;
  targetOf(tab: number): string | undefined;
}

class Late extends Error {}
class Refused extends Error {
  constructor(readonly reply: Extract<ControlReply, { ok: false }>) {
    super(reply.refused);
  }
}

const BUTTON_BITS = { left: 1, right: 2, middle: 4 } as const;
/** The button a move drags with, from MouseEvent.buttons. */
const heldButton = (buttons = 0) => (buttons & 1 ? 'left' : buttons & 4 ? 'middle' : buttons & 2 ? 'right' : 'none');

export class LiveControl {
  private chain: Promise<unknown> = Promise.resolve();
  private attachment: Promise<ControlAttachment> | undefined;
  private idle: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    /** The session's browser while it runs; undefined once it ended. */
    private readonly browser: () => Browser | undefined,
    private readonly tabs: TabDirectory,
    /** Where the driven tab's frames go: the live view, not the recording. */
    private readonly emit: (frame: ScreenFrame) => void,
    private readonly log: Logger,
    private readonly idleMs = CONTROL_IDLE_MS,
  ) {}

  /** A message from the bus, whatever it holds; the answer to send back. */
  handle(data: Uint8Array): Promise<ControlReply> {
    const done = this.chain.then(() => this.run(data));
    this.chain = done.catch(() => undefined);
    return done;
  }

  private async run(data: Uint8Array): Promise<ControlReply> {
    let request: ControlRequest;
    try {
      const parsed = controlRequest.safeParse(JSON.parse(Buffer.from(data).toString('utf8')));
      if (!parsed.success) return { ok: false, refused: 'invalid' };
      request = parsed.data;
    } catch {
      return { ok: false, refused: 'invalid' };
    }
    if ('release' in request) {
      await this.release();
      return { ok: true };
    }
    clearTimeout(this.idle);
    const browser = this.browser();
    if (this.closed || !browser?.connected) return { ok: false, refused: 'not_live' };
    const deadline = Date.now() + BATCH_BUDGET_MS;
    try {
      const attachment = await this.attach(browser, request.site);
      const targetId = this.tabs.targetOf(request.tab);
      const page = targetId ? await attachment.page(targetId) : undefined;
      if (!targetId || !page) return { ok: false, refused: 'no_tab' };
      await within(deadline, attachment.activate(targetId, page));
      for (const action of request.actions) await this.dispatch(page, action, request.site, deadline);
      const url = await within(deadline, attachment.url(targetId));
      const blocked = attachment.takeBlocked();
      return {
        ok: true,
        ...(url && url.length <= 8_192 && { url }),
        ...(blocked.length > 0 && { blocked }),
      };
    } catch (err) {
      if (err instanceof Refused) return err.reply;
      if (!(err instanceof Late)) this.log.warn({ err, tab: request.tab }, 'control input not dispatched');
      return { ok: false, refused: this.browser()?.connected ? 'unresponsive' : 'not_live' };
    } finally {
      this.armIdle();
    }
  }

  /** The attachment of this control period, opened at its first batch; the site follows the latest link. */
  private async attach(browser: Browser, site: string): Promise<ControlAttachment> {
    this.attachment ??= ControlAttachment.open(browser, site, {
      tabOf: (targetId) => this.tabs.tabOf(targetId),
      emit: this.emit,
    });
    const attachment = await this.attachment.catch((err) => {
      this.attachment = undefined;
      throw err;
    });
    attachment.site = site;
    return attachment;
  }

  private async dispatch(page: CDPSession, action: ControlAction, site: string, deadline: number): Promise<void> {
    const send = (method: string, params: object) => within(deadline, page.send(method as never, params as never));
    switch (action.type) {
      case 'mouseMove':
        return void (await send('Input.dispatchMouseEvent', {
          type: 'mouseMoved',
          x: action.x,
          y: action.y,
          button: heldButton(action.buttons),
          buttons: action.buttons ?? 0,
          modifiers: action.modifiers ?? 0,
        }));
      case 'mouseDown':
      case 'mouseUp':
        return void (await send('Input.dispatchMouseEvent', {
          type: action.type === 'mouseDown' ? 'mousePressed' : 'mouseReleased',
          x: action.x,
          y: action.y,
          button: action.button,
          buttons: action.type === 'mouseDown' ? BUTTON_BITS[action.button] : 0,
          clickCount: action.clickCount,
          modifiers: action.modifiers ?? 0,
        }));
      case 'wheel':
        return void (await send('Input.dispatchMouseEvent', {
          type: 'mouseWheel',
          x: action.x,
          y: action.y,
          deltaX: action.deltaX,
          deltaY: action.deltaY,
          modifiers: action.modifiers ?? 0,
        }));
      case 'keyDown':
      case 'keyUp': {
        const modifiers = action.modifiers ?? 0;
        const text = action.type === 'keyDown' ? typedText(action.key, action.text, modifiers) : undefined;
        const keyCode = virtualKeyCode(action.code, action.key);
        return void (await send('Input.dispatchKeyEvent', {
          type: action.type === 'keyUp' ? 'keyUp' : text ? 'keyDown' : 'rawKeyDown',
          key: action.key,
          code: action.code,
          windowsVirtualKeyCode: keyCode,
          nativeVirtualKeyCode: keyCode,
          modifiers,
          ...(text && { text, unmodifiedText: text }),
        }));
      }
      case 'insertText':
        return void (await send('Input.insertText', { text: action.text }));
      case 'navigate': {
        if (!sameSite(action.url, site))
          throw new Refused({ ok: false, refused: 'cross_site', host: refusedHost(action.url) });
        // Waited for until its response starts, or NAVIGATE_WAIT_MS: a slow page goes on loading.
        const navigating = page.send('Page.navigate', { url: action.url }).catch(() => undefined);
        await within(Math.min(deadline, Date.now() + NAVIGATE_WAIT_MS), navigating).catch((err) => {
          if (!(err instanceof Late) || Date.now() >= deadline) throw err;
        });
        return;
      }
      case 'back': {
        const history = await send('Page.getNavigationHistory', {});
        const { currentIndex, entries } = history as { currentIndex: number; entries: { id: number; url: string }[] };
        const previous = entries[currentIndex - 1];
        if (!previous) return;
        // A page kept in the back-forward cache comes back without a request the guard could stop: checked here.
        if (!sameSite(previous.url, site))
          throw new Refused({ ok: false, refused: 'cross_site', host: refusedHost(previous.url) });
        return void (await send('Page.navigateToHistoryEntry', { entryId: previous.id }));
      }
    }
  }

  private armIdle(): void {
    clearTimeout(this.idle);
    if (!this.attachment) return;
    this.idle = setTimeout(() => void this.release(), this.idleMs);
    this.idle.unref();
  }

  /** Ends the control period: the tabs are no longer kept on the site, the fast screencast stops. */
  async release(): Promise<void> {
    clearTimeout(this.idle);
    const attachment = this.attachment;
    this.attachment = undefined;
    await (await attachment?.catch(() => undefined))?.close();
  }

  /** The session ended: no batch is dispatched any more. */
  async close(): Promise<void> {
    this.closed = true;
    await this.release();
  }
}

/** `work`, unless `deadline` (epoch ms) passes first: then Late. */
async function within<T>(deadline: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Late('late')), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
