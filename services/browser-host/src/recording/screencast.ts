// A page's screencast (docs/sessions.md, "Screencast"): JPEG frames from
// Chromium's compositor on the host's own CDP session to the page, sent only
// when something changed. Two limits, one for Chromium and one for us:
//
// - Chromium encodes a frame for every change until three are
//   unacknowledged; each is acknowledged only after the interval, so a busy
//   page costs a few encodes a second, not one per paint (acknowledging at
//   once cost about 15 ms a page load on a 2-core host, 2026-11-24). The
//   changes made while three are out are dropped, so once they are all
//   acknowledged the screencast is restarted, which sends the page as it is.
// - The host keeps one frame per interval at most: a frame that comes sooner
//   waits and a newer one replaces it, so the last state of a page that stops
//   changing is always kept.
//
// Frames fill what rrweb cannot see (canvas, video, plugins) in the recording
// and feed the live view. Nothing runs in the page: it cannot tell.
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

/** Chromium's screencast stops encoding while this many frames are unacknowledged. */
const MAX_IN_FLIGHT = 3;

/** Starts the page's screencast; frames go to `emit` until the page or the CDP session goes, or until `stop`. */
export function startScreencast(
  cdp: CDPSession,
  tab: number,
  intervalMs: number,
  emit: (f: ScreenFrame) => void,
): () => void {
  let stopped = false;
  let inFlight = 0;
  /** Chromium stopped encoding at some point: a change may have been dropped meanwhile. */
  let saturated = false;
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
  const start = () => cdp.send('Page.startScreencast', SCREENCAST_PARAMS as never).catch(() => undefined);
  const onFrame = (p: unknown) => {
    if (stopped) return;
    const e = p as FrameEvent;
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
    if (++inFlight >= MAX_IN_FLIGHT) saturated = true;
    const ack = setTimeout(async () => {
      await cdp.send('Page.screencastFrameAck', { sessionId: e.sessionId }).catch(() => undefined);
      if (--inFlight > 0 || !saturated || stopped) return;
      saturated = false;
      // What changed while Chromium waited was dropped: a restart sends the page as it is now.
      await cdp.send('Page.stopScreencast').catch(() => undefined);
      await start();
    }, intervalMs);
    ack.unref();
  };
  cdp.on('Page.screencastFrame', onFrame);
  void start();
  return () => {
    stopped = true;
    clearTimeout(timer);
    cdp.off('Page.screencastFrame', onFrame);
    void cdp.send('Page.stopScreencast').catch(() => undefined);
  };
}
