// A session's recording as the replay player takes it: the stored chunks
// (gzip'd JSON arrays of `{ tab, events }` batches, in order) read from the
// session-recorder and gathered per tab, with each tab's pages (rrweb's Meta
// events: the URL and when it was reached).
import { gunzipSync } from 'node:zlib';
import type { Upstreams } from '../clients/upstreams.js';

/** rrweb's event type of a new document's first event, which carries its URL. */
const RRWEB_META = 4;

interface RrwebEvent {
  type: number;
  timestamp: number;
  data?: { href?: string };
}

export interface ReplayTab {
  tab: number;
  events: RrwebEvent[];
  pages: { url: string; at: number }[];
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
  for (const chunk of chunks) {
    if (chunk.kind !== 'rrweb') continue;
    const batches = JSON.parse(gunzipSync(chunk.body).toString('utf8')) as { tab: number; events: RrwebEvent[] }[];
    for (const { tab, events } of batches) {
      let entry = tabs.get(tab);
      if (!entry) {
        entry = { tab, events: [], pages: [] };
        tabs.set(tab, entry);
      }
      for (const event of events) {
        entry.events.push(event);
        if (event.type === RRWEB_META && event.data?.href)
          entry.pages.push({ url: event.data.href, at: event.timestamp });
      }
    }
  }
  // A tab's batches arrive in order; events within a page's batch too. Sorting by time keeps a replay sane whatever.
  for (const entry of tabs.values()) entry.events.sort((a, b) => a.timestamp - b.timestamp);
  return { sessionId, tabs: [...tabs.values()].sort((a, b) => a.tab - b.tab) };
}
