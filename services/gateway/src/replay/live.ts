// The live view of a running session (docs/sessions.md, "Live view"): its
// browser host publishes each page's screencast frames on core NATS as they
// come, and answers an ask for the latest frame of each tab, so a viewer who
// opens between frames sees the page at once.
import { type NatsLink, sessionStreamNames } from '@wap/events';

/** A screencast frame as browser-host sends it: base64 JPEG of one tab at one time. */
export interface LiveFrame {
  tab: number;
  at: number;
  width: number;
  height: number;
  data: string;
}

const isFrame = (v: unknown): v is LiveFrame => {
  const f = v as Partial<LiveFrame> | null;
  return (
    typeof f === 'object' &&
    f !== null &&
    typeof f.tab === 'number' &&
    typeof f.at === 'number' &&
    typeof f.width === 'number' &&
    typeof f.height === 'number' &&
    typeof f.data === 'string'
  );
};

/** How long the host has to answer an ask for its latest frames. */
const LATEST_TIMEOUT_MS = 2_000;

export class LiveFrames {
  private readonly names;

  constructor(
    private readonly nc: NatsLink['nc'],
    namespace: string,
  ) {
    this.names = sessionStreamNames(namespace);
  }

  /** Calls `onFrame` with each new frame of the session until the returned stop is called. */
  watch(sessionId: string, onFrame: (frame: LiveFrame) => void): () => void {
    const sub = this.nc.subscribe(this.names.liveFrames(sessionId), {
      callback: (_err, msg) => {
        try {
          const frame = msg.json<unknown>();
          if (isFrame(frame)) onFrame(frame);
        } catch {}
      },
    });
    return () => sub.unsubscribe();
  }

  /**
   * Tells the session's host a live view is still open, so its pages keep their screencast (the host
   * runs a page's screencast for a while after each ask, docs/sessions.md): an ask with nothing to answer.
   */
  stillWatching(sessionId: string): void {
    this.nc.publish(this.names.liveLatest(sessionId));
  }

  /**
   * The latest frame of each tab, from the session's host; none when it does not answer (ended, or no frame yet).
   * The ask starts the screencast of pages that had none: their first frames follow on `watch`.
   */
  async latest(sessionId: string): Promise<LiveFrame[]> {
    try {
      const answer = await this.nc.request(this.names.liveLatest(sessionId), '', { timeout: LATEST_TIMEOUT_MS });
      const frames = answer.json<unknown>();
      return Array.isArray(frames) ? frames.filter(isFrame) : [];
    } catch {
      return [];
    }
  }
}
