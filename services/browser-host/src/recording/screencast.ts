// A page's screencast (docs/sessions.md, "Screencast"): JPEG frames from
// Chromium's compositor on the host's own CDP session to the page, sent only
// when something changed, kept at most one per interval: a frame that comes
// sooner waits, and a newer one replaces it, so the last state of a page
// that stops changing is always kept. Every frame is acknowledged at once:
// Chromium keeps only two unacknowledged, and drops the changes that come
// while it waits (measured 2026-11-24: a change made then never reached the
// screencast). They fill what rrweb cannot see (canvas, video, plugins) in
// the recording and feed the live view. Nothing runs in the page: it cannot
// tell.
import type { CDPSession } from 'puppeteer-core';

/** One frame as the recording and the live view carry it. */
export interface ScreenFrame {
  tab: number;
  /** Epoch milliseconds of the frame. */
  at: number;
  /** CSS pixels of the page's viewport when it was taken. */
  width: number;
  height: number;
  /** Base64 JPEG. */
  data: string;
}

/** Small enough to stream and store at a frame a second, sharp enough to read text. */
export const SCREENCAST_PARAMS = { format: 'jpeg', quality: 55, maxWidth: 1024, maxHeight: 768, everyNthFrame: 1 };

interface FrameEvent {
  data: string;
  sessionId: number;
  metadata: { timestamp?: number; deviceWidth: number; deviceHeight: number };
}

/** Starts the page's screencast; frames go to `emit` until the page or the CDP session goes. */
export function startScreencast(cdp: CDPSession, tab: number, intervalMs: number, emit: (f: ScreenFrame) => void) {
  let lastEmit = 0;
  let waiting: ScreenFrame | undefined;
  let timer: NodeJS.Timeout | undefined;
  const send = () => {
    timer = undefined;
    if (!waiting) return;
    lastEmit = Date.now();
    emit(waiting);
    waiting = undefined;
  };
  cdp.on('Page.screencastFrame', (p: unknown) => {
    const e = p as FrameEvent;
    cdp.send('Page.screencastFrameAck', { sessionId: e.sessionId }).catch(() => undefined);
    waiting = {
      tab,
      at: Math.round((e.metadata.timestamp ?? Date.now() / 1000) * 1000),
      width: Math.round(e.metadata.deviceWidth),
      height: Math.round(e.metadata.deviceHeight),
      data: e.data,
    };
    const due = lastEmit + intervalMs - Date.now();
    if (due <= 0) send();
    else if (!timer) {
      timer = setTimeout(send, due);
      timer.unref();
    }
  });
  cdp.send('Page.startScreencast', SCREENCAST_PARAMS as never).catch(() => undefined);
}
