// A session's recording as the replay player takes it: the stored chunks
// (gzip'd JSON arrays of `{ tab, events }` batches, in order) read from the
// session-recorder and gathered per tab, with each tab's pages (rrweb's Meta
// events: the URL and when it was reached).
import { gunzipSync } from 'node:zlib';
import type { Upstreams } from '../clients/upstreams.js';

/** rrweb's event type of a new document's first event, which carries its URL. */
const RRWEB_META = 4;
/** rrweb's event type of an application's own event: the player passes it by. */
const RRWEB_CUSTOM = 5;

interface RrwebEvent {
  type: number;
  timestamp: number;
  data?: { href?: string; tag?: string; payload?: unknown };
}

export interface ReplayTab {
  tab: number;
  events: RrwebEvent[];
  pages: { url: string; at: number }[];
  /** Screencast frames (base64 JPEG): what rrweb cannot see, canvas and video. */
  frames: { at: number; width: number; height: number; data: string }[];
  /** The tab's requests, for the timeline (the network log has the rest). */
  requests: { at: number; method: string; url: string; status: number; type: string; durationMs: number }[];
}

export interface ReplayData {
  sessionId: string;
  tabs: ReplayTab[];
}

export async function readReplay(
  upstreams: Upstreams,
  workspaceId: string,
  sessionId: string,
  signal?: AbortSignal,
): Promise<ReplayData> {
  const chunks: { kind: string; body: Uint8Array }[] = [];
  for await (const chunk of upstreams.sessions.readRecording({ workspaceId, sessionId }, { signal }))
    chunks.push(chunk);
  return readReplayChunks(sessionId, chunks);
}

/** The replay of stored chunks, in their order: rrweb events per tab, with each tab's pages. */
export function readReplayChunks(sessionId: string, chunks: readonly { kind: string; body: Uint8Array }[]): ReplayData {
  const tabs = new Map<number, ReplayTab>();
  const entryOf = (tab: number) => {
    let entry = tabs.get(tab);
    if (!entry) {
      entry = { tab, events: [], pages: [], frames: [], requests: [] };
      tabs.set(tab, entry);
    }
    return entry;
  };
  const frames: (ReplayTab['frames'][number] & { tab: number })[] = [];
  const requests: (ReplayTab['requests'][number] & { tab: number })[] = [];
  for (const chunk of chunks) {
    const items = JSON.parse(gunzipSync(chunk.body).toString('utf8')) as unknown[];
    if (chunk.kind === 'screencast') {
      for (const f of items as (ReplayTab['frames'][number] & { tab: number })[])
        frames.push({ tab: f.tab, at: f.at, width: f.width, height: f.height, data: f.data });
      continue;
    }
    if (chunk.kind === 'network') {
      for (const r of items as {
        tab: number;
        startedAt: number;
        method: string;
        url: string;
        status: number;
        type: string;
        durationMs: number;
      }[])
        requests.push({
          tab: r.tab,
          at: r.startedAt,
          method: r.method,
          url: r.url,
          status: r.status,
          type: r.type,
          durationMs: r.durationMs,
        });
      continue;
    }
    if (chunk.kind !== 'rrweb') continue;
    for (const { tab, events } of items as { tab: number; events: RrwebEvent[] }[]) {
      const entry = entryOf(tab);
      for (const event of events) {
        entry.events.push(event);
        if (event.type === RRWEB_META && event.data?.href)
          entry.pages.push({ url: event.data.href, at: event.timestamp });
      }
    }
  }
  // Frames and requests of a tab rrweb never saw (a PDF, an error page) have nothing to play beside.
  for (const { tab, ...frame } of frames) tabs.get(tab)?.frames.push(frame);
  for (const { tab, ...request } of requests) tabs.get(tab)?.requests.push(request);
  // A tab's batches arrive in order; events within a page's batch too. Sorting by time keeps a replay sane whatever.
  for (const entry of tabs.values()) {
    entry.events.sort((a, b) => a.timestamp - b.timestamp);
    entry.frames.sort((a, b) => a.at - b.at);
    entry.requests.sort((a, b) => a.at - b.at);
    // The player applies, at its end, only the events strictly before it: a tab whose last event is a page's
    // snapshot (a page that changed no more) would end on the page before. A marker after everything closes it.
    const last = Math.max(
      entry.events.at(-1)?.timestamp ?? 0,
      entry.frames.at(-1)?.at ?? 0,
      entry.requests.at(-1)?.at ?? 0,
    );
    entry.events.push({ type: RRWEB_CUSTOM, timestamp: last + 1, data: { tag: 'wap.end', payload: {} } });
  }
  return { sessionId, tabs: [...tabs.values()].sort((a, b) => a.tab - b.tab) };
}
