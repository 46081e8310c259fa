// Which of a session's pages run their screencast (docs/sessions.md,
// "Screencast"). A screencast costs a page load about a fifth more on a 2-core
// host and stores ten times the bytes of the rest of the recording (make
// bench's recording.bench, 2026-11-27), and a replay needs its frames only for
// what rrweb cannot see. So a page's screencast runs while either holds:
//
// - its document shows what rrweb cannot see: a canvas, a video, a plugin's
//   embed or object (the recording tells, from the page's own events, until
//   the page's next document);
// - someone watches the session live: each ask of a live view counts for
//   WATCH_MS, and a live view asks again while it is open.
//
// Or all the time, for every page, when the host is set so (SCREENCAST=always).
import type { CDPSession } from 'puppeteer-core';
import { type ScreenFrame, startScreencast } from './screencast.js';

/** How long one ask of a live view keeps every page's screencast running. */
export const WATCH_MS = 30_000;

interface Tab {
  cdp: CDPSession;
  /** The tab's document shows what rrweb cannot see. */
  media: boolean;
  stop?: () => void;
}

export class Screencasts {
  private readonly tabs = new Map<number, Tab>();
  private watchedUntil = 0;
  private watchTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly intervalMs: number,
    private readonly emit: (frame: ScreenFrame) => void,
    options: {
      /** Every page runs its screencast all the time (the SCREENCAST setting's `always`). */
      always?: boolean;
      /** How long one ask keeps every page's screencast running. */
      watchMs?: number;
    } = {},
  ) {
    this.always = options.always ?? false;
    this.watchMs = options.watchMs ?? WATCH_MS;
  }

  private readonly always: boolean;
  private readonly watchMs: number;

  /** A page the host attached to, under the session's number for its tab. */
  add(tab: number, cdp: CDPSession): void {
    if (this.closed) return;
    this.tabs.get(tab)?.stop?.();
    this.tabs.set(tab, { cdp, media: false });
    this.apply(tab);
  }

  /** The page's target went (closed, or the host detached from it). */
  remove(tab: number, cdp: CDPSession): void {
    if (this.tabs.get(tab)?.cdp === cdp) this.tabs.delete(tab);
  }

  /** What the recording learned of a tab's document: `shows` is whether it shows what rrweb cannot see. */
  media(tab: number, shows: boolean): void {
    const t = this.tabs.get(tab);
    if (!t || t.media === shows) return;
    t.media = shows;
    this.apply(tab);
  }

  /** Someone watches the session live: every page's screencast runs for `watchMs` from now. */
  watch(): void {
    if (this.closed) return;
    this.watchedUntil = Date.now() + this.watchMs;
    clearTimeout(this.watchTimer);
    this.watchTimer = setTimeout(() => this.applyAll(), this.watchMs + 1);
    this.watchTimer.unref();
    this.applyAll();
  }

  /** The tabs whose screencast runs now. */
  running(): number[] {
    return [...this.tabs].filter(([, t]) => t.stop).map(([tab]) => tab);
  }

  /** Stops every screencast; nothing starts again. */
  close(): void {
    this.closed = true;
    clearTimeout(this.watchTimer);
    for (const t of this.tabs.values()) t.stop?.();
    this.tabs.clear();
  }

  private applyAll(): void {
    for (const tab of this.tabs.keys()) this.apply(tab);
  }

  private apply(tab: number): void {
    const t = this.tabs.get(tab);
    if (!t) return;
    const wanted = !this.closed && (this.always || t.media || Date.now() < this.watchedUntil);
    if (wanted && !t.stop) t.stop = startScreencast(t.cdp, tab, this.intervalMs, this.emit);
    else if (!wanted && t.stop) {
      t.stop();
      t.stop = undefined;
    }
  }
}

const MEDIA_TAGS = ['canvas', 'video', 'embed', 'object'].map((tag) => Buffer.from(`"tagName":"${tag}"`));

/**
 * Whether a batch the recorder extension posted (its JSON, as received) adds an
 * element rrweb cannot replay. A page's text cannot forge the marker: inside a
 * JSON string its quotes are escaped. A page can hide its canvas from this, and
 * so only from its own replay.
 */
export const showsMedia = (body: Buffer): boolean => MEDIA_TAGS.some((tag) => body.includes(tag));
