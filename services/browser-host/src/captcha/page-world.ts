// The host's hands in a page, from outside it (docs/connect.md, "Captchas"):
// a CDP session of the host's own on the page's target, and an isolated world
// of its own in the page's main frame, where it reads the DOM. Nothing runs in
// the page's main world, nothing is patched, Runtime is never enabled (its
// console reporting is what careful pages probe): the page cannot tell the
// host is looking. Pointer and keys go in through Input, as a person's would.
import type { CDPSession } from 'puppeteer-core';

/** The name of the host's world in a page (as puppeteer names its own, so it is one more of a kind). */
const WORLD = '__puppeteer_utility_world__captcha';

export interface PageWorld {
  /** The value of `expression` evaluated in the host's world (JSON values only). */
  evaluate<T>(expression: string): Promise<T>;
  /** A PNG of the document's region (CSS pixels), `scale` times larger. */
  capture(clip: { x: number; y: number; width: number; height: number }, scale: number): Promise<Buffer>;
  /** A left click at a point of the viewport. */
  click(x: number, y: number): Promise<void>;
  /** Text typed where the focus is, and Enter when asked. */
  type(text: string, enter?: boolean): Promise<void>;
  /** Calls, in the page's world, the function a widget named for its answer (provider hand-off only). */
  callPage(expression: string): Promise<void>;
  close(): Promise<void>;
}

/** What a world can be opened in: a puppeteer Page, or a Target the host never made a Page of. */
export interface PageTarget {
  createCDPSession(): Promise<CDPSession>;
}

/** A world of the host's own in `page`; each call makes it anew if the page navigated meanwhile. */
export async function openPageWorld(page: PageTarget): Promise<PageWorld> {
  const cdp: CDPSession = await page.createCDPSession();
  let context: { frameId: string; id: number } | undefined;
  const world = async () => {
    const { frameTree } = (await cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
    const frameId = frameTree.frame.id;
    if (context?.frameId === frameId) return context.id;
    const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId, worldName: WORLD });
    context = { frameId, id: executionContextId };
    return executionContextId;
  };
  const evaluate = async <T>(expression: string): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      const contextId = await world();
      try {
        const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', {
          expression,
          contextId,
          returnByValue: true,
          awaitPromise: true,
        });
        if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
        return result.value as T;
      } catch (err) {
        // The document changed under it (a navigation, the same frame id): a new world in the new document.
        if (attempt > 0 || !/context/i.test(String(err))) throw err;
        context = undefined;
      }
    }
  };
  const mouse = async (type: 'mousePressed' | 'mouseReleased' | 'mouseMoved', x: number, y: number) =>
    cdp.send('Input.dispatchMouseEvent', {
      type,
      x,
      y,
      button: type === 'mouseMoved' ? 'none' : 'left',
      clickCount: 1,
    });
  return {
    evaluate,
    capture: async (clip, scale) => {
      const { data } = await cdp.send('Page.captureScreenshot', {
        format: 'png',
        clip: { ...clip, scale },
        captureBeyondViewport: true,
      });
      return Buffer.from(data, 'base64');
    },
    click: async (x, y) => {
      await mouse('mouseMoved', x, y);
      await mouse('mousePressed', x, y);
      await mouse('mouseReleased', x, y);
    },
    type: async (text, enter = false) => {
      await cdp.send('Input.insertText', { text });
      if (!enter) return;
      const key = { key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, text: '\r' };
      await cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', ...key });
      await cdp.send('Input.dispatchKeyEvent', {
        type: 'keyUp',
        key: 'Enter',
        code: 'Enter',
        windowsVirtualKeyCode: 13,
      });
    },
    callPage: async (expression) => {
      const { exceptionDetails } = await cdp.send('Runtime.evaluate', { expression, awaitPromise: true });
      if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
    },
    close: () => cdp.detach().catch(() => undefined),
  };
}
