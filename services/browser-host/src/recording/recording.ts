// One session's recording on its host: what the recorder extension posts
// (docs/sessions.md) gathered into ordered, compressed chunks, each signed and
// published for the session-recorder. Chunks go out one at a time, in order;
// the last is flushed when the session ends.
import { gzipSync } from 'node:zlib';
import type { NatsLink } from '@wap/events';
import { type ChunkKind, type ChunkMeta, chunkHeaders, type Publisher, sessionStreamNames } from '@wap/events';
import type { Logger } from '@wap/log';
import type { Browser } from 'puppeteer-core';
import { LiveControl, type TabDirectory } from '../control/live-control.js';
import type { NetworkRow } from './network.js';
import type { ScreenFrame } from './screencast.js';
import { type Screencasts, showsMedia } from './screencasts.js';

/** Where chunks go: JetStream, signed with the fleet's recording key; and screencast frames, live. */
export interface ChunkSink {
  publish(meta: ChunkMeta, body: Uint8Array): Promise<void>;
  /** A running session's frame for whoever watches it live (core NATS: nobody watching, nothing kept). */
  live?(sessionId: string, frame: ScreenFrame): void;
  /**
   * Answers a live view's ask for the latest frame of each tab (an ask with no reply subject only says
   * the view is still open), until the returned stop is called. Each ask calls `latest`.
   */
  serveLatest?(sessionId: string, latest: () => ScreenFrame[]): () => void;
  /** Dispatches a person's input to the session's browser (control/), until the returned stop is called. */
  serveControl?(sessionId: string, tabs: TabDirectory, log: Logger): () => Promise<void>;
}

/** `browserOf`: a running session's browser, for human control of it; without it there is none. */
export function chunkSink(
  publisher: Publisher,
  namespace: string,
  key: string,
  nc?: NatsLink['nc'],
  browserOf?: (sessionId: string) => Browser | undefined,
): ChunkSink {
  const names = sessionStreamNames(namespace);
  return {
    async publish(meta, body) {
      await publisher.publishBytes(names.chunks(meta.sessionId), body, {
        msgId: `${meta.sessionId}:${meta.seq}`,
        headers: chunkHeaders(key, meta, body),
      });
    },
    ...(nc && {
      live(sessionId: string, frame: ScreenFrame) {
        nc.publish(names.liveFrames(sessionId), JSON.stringify(frame));
      },
      serveLatest(sessionId: string, latest: () => ScreenFrame[]) {
        // An ask without a reply subject is a live view saying it still watches: nothing to answer.
        const sub = nc.subscribe(names.liveLatest(sessionId), {
          callback: (_err, msg) => {
            const frames = latest();
            if (msg.reply) msg.respond(JSON.stringify(frames));
          },
        });
        return () => sub.unsubscribe();
      },
    }),
    ...(nc &&
      browserOf && {
        serveControl(sessionId: string, tabs: TabDirectory, log: Logger) {
          const control = new LiveControl(
            () => browserOf(sessionId),
            tabs,
            (frame) => nc.publish(names.liveFrames(sessionId), JSON.stringify(frame)),
            log,
          );
          const sub = nc.subscribe(names.liveInput(sessionId), {
            callback: (_err, msg) => {
              void control.handle(msg.data).then((reply) => msg.respond(JSON.stringify(reply)));
            },
          });
          return async () => {
            sub.unsubscribe();
            await control.close();
          };
        },
      }),
  };
}

/** rrweb's event type of a new document's first event. */
const RRWEB_META = 4;
/** A chunk is sent at least this often while events come, and sooner when this large. */
export const CHUNK_EVERY_MS = 1_000;
export const CHUNK_MAX_BYTES = 512 * 1024;
/** How long the end of a session waits for its last chunks to go out (NATS away) before it goes on without them. */
export const CLOSE_WAIT_MS = 10_000;
/**
 * How long chunks still not out are tried after that, in the background: well past the time
 * a NATS cluster takes to elect a new leader for a stream whose leader died (3.8–7.2 s
 * measured, docs/scale.md). Then they are lost, and logged.
 */
export const GIVE_UP_MS = 120_000;
/** The longest pause between two tries of a chunk: it is out within this of JetStream answering again. */
const RETRY_MAX_MS = 1_000;

interface Batch {
  tab: number;
  events: unknown[];
}

/** A body the extension's worker posted: Chromium's tab id, the tab's DevTools target id when known, rrweb events. */
export interface PostedBatch {
  tab: number;
  target?: string;
  events: unknown[];
}

/** A posted body as the extension's worker sends it: `{ tab, target, events }`; undefined when malformed. */
export function parseBatch(body: Buffer): PostedBatch | undefined {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { tab?: unknown; target?: unknown; events?: unknown };
    if (typeof parsed.tab === 'number' && Array.isArray(parsed.events))
      return {
        tab: parsed.tab,
        ...(typeof parsed.target === 'string' && { target: parsed.target }),
        events: parsed.events,
      };
  } catch {}
  return undefined;
}

export class SessionRecording {
  private seq = 0;
  private pending: Batch[] = [];
  private pendingBytes = 0;
  private pendingPages = 0;
  private network: NetworkRow[] = [];
  private frames: ScreenFrame[] = [];
  /** The latest frame of each tab, for a live view that opens between frames. */
  private readonly latest = new Map<number, ScreenFrame>();
  private readonly stopServing: (() => void) | undefined;
  private readonly stopControl: (() => Promise<void>) | undefined;
  /** Tabs numbered 1, 2... in the order first seen, by DevTools target id (or Chromium's tab id when the worker could not tell it). */
  private readonly tabs = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  pages = 0;

  /** `live: false`: nobody watches it live nor takes it over (a render's, over within seconds). */
  constructor(
    readonly sessionId: string,
    readonly workspaceId: string,
    private readonly sink: ChunkSink,
    private readonly log: Logger,
    { live = true }: { live?: boolean } = {},
  ) {
    this.stopServing = live
      ? sink.serveLatest?.(sessionId, () => {
          this.screencasts?.watch();
          return [...this.latest.values()];
        })
      : undefined;
    this.stopControl = live ? sink.serveControl?.(sessionId, this, log) : undefined;
  }

  /** The session's number for a tab: its replay, network log and screencast agree on it. */
  tabOf(targetId: string): number {
    return this.number(`target:${targetId}`);
  }

  /** The DevTools target id of a tab number, when the tab is a page the host has seen. */
  targetOf(tab: number): string | undefined {
    for (const [key, n] of this.tabs) if (n === tab && key.startsWith('target:')) return key.slice('target:'.length);
    return undefined;
  }

  private number(key: string): number {
    let tab = this.tabs.get(key);
    if (tab === undefined) {
      tab = this.tabs.size + 1;
      this.tabs.set(key, tab);
    }
    return tab;
  }

  /** The session's pages' screencasts, told what each page's events show and when someone watches. */
  private screencasts: Screencasts | undefined;

  /** Runs each page's screencast while it shows what rrweb cannot see, or while someone watches live. */
  screenWith(screencasts: Screencasts): void {
    this.screencasts = screencasts;
  }

  /** A body the extension posted; a malformed one is dropped (only the session's own extension can post). */
  accept(body: Buffer): void {
    const batch = parseBatch(body);
    if (!batch) return;
    const seen = this.acceptBatch(batch, body.length);
    if (!seen || !this.screencasts) return;
    // A new document starts over; until then, what one batch showed stays shown.
    const shows = showsMedia(body);
    if (seen.pages > 0 || shows) this.screencasts.media(seen.tab, shows);
  }

  /** A batch the extension posted, read already (`bytes`: its body's size): its tab and how many documents it starts. */
  acceptBatch(batch: PostedBatch, bytes: number): { tab: number; pages: number } | undefined {
    if (this.closed || batch.events.length === 0) return undefined;
    const tab = batch.target ? this.tabOf(batch.target) : this.number(`chrome:${batch.tab}`);
    const pages = batch.events.filter((e) => (e as { type?: unknown }).type === RRWEB_META).length;
    this.pending.push({ tab, events: batch.events });
    this.pendingBytes += bytes;
    this.pendingPages += pages;
    this.pages += pages;
    this.soon();
    return { tab, pages };
  }

  /** A request of the session's network log (recording/network.ts): it goes in a `network` chunk. */
  acceptNetwork(row: NetworkRow): void {
    if (this.closed) return;
    this.network.push(row);
    this.pendingBytes += 256 + row.url.length + (row.body?.length ?? 0);
    this.soon();
  }

  /** A screencast frame (recording/screencast.ts): live at once, and in a `screencast` chunk. */
  acceptFrame(frame: ScreenFrame): void {
    if (this.closed) return;
    this.latest.set(frame.tab, frame);
    this.sink.live?.(this.sessionId, frame);
    this.frames.push(frame);
    this.pendingBytes += frame.data.length;
    this.soon();
  }

  /** Flushes when enough is gathered, else within CHUNK_EVERY_MS. */
  private soon(): void {
    if (this.pendingBytes >= CHUNK_MAX_BYTES) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), CHUNK_EVERY_MS);
      this.timer.unref();
    }
  }

  /** Sends what is gathered as the next chunks (events, then requests), after the ones before them. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length > 0) this.send('rrweb', this.pendingPages, this.pending);
    if (this.network.length > 0) this.send('network', 0, this.network);
    if (this.frames.length > 0) this.send('screencast', 0, this.frames);
    this.pending = [];
    this.pendingPages = 0;
    this.network = [];
    this.frames = [];
    this.pendingBytes = 0;
    return this.chain;
  }

  /** Queues one chunk of `kind` holding `payload`, numbered next. */
  private send(kind: ChunkKind, pages: number, payload: unknown[]): void {
    const meta: ChunkMeta = { sessionId: this.sessionId, workspaceId: this.workspaceId, seq: this.seq++, kind, pages };
    const body = gzipSync(JSON.stringify(payload));
    this.chain = this.chain.then(() => this.publish(meta, body));
  }

  /** Tries until it is out (a chunk skipped would leave a gap the recorder cannot pass), unless abandoned. */
  private async publish(meta: ChunkMeta, body: Uint8Array): Promise<void> {
    for (let attempt = 1; !this.abandoned; attempt++) {
      try {
        await this.sink.publish(meta, body);
        return;
      } catch (err) {
        if (attempt === 3)
          this.log.warn({ err, sessionId: meta.sessionId, seq: meta.seq }, 'recording chunk not published yet');
        await new Promise((r) => setTimeout(r, Math.min(RETRY_MAX_MS, 100 * 2 ** attempt)));
      }
    }
    this.log.error(
      { sessionId: meta.sessionId, seq: meta.seq },
      'recording chunk lost: the session ended with it unpublished',
    );
  }

  private abandoned = false;

  /**
   * Flushes the last chunk and waits until every chunk is out (CLOSE_WAIT_MS at most; those
   * not out by then are still tried for GIVE_UP_MS); later posts are dropped.
   */
  async close(): Promise<void> {
    const last = this.flush();
    this.closed = true;
    this.screencasts?.close();
    this.stopServing?.();
    await this.stopControl?.();
    let out = false;
    const giveUp = setTimeout(() => {
      this.abandoned = true;
    }, GIVE_UP_MS);
    giveUp.unref();
    void last.then(() => {
      out = true;
      clearTimeout(giveUp);
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_WAIT_MS);
    });
    await Promise.race([last, late]);
    clearTimeout(timer);
    this.log.info(
      { sessionId: this.sessionId, chunks: this.seq, pages: this.pages, complete: out },
      'session recording closed',
    );
  }
}
