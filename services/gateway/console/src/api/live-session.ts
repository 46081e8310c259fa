// A session as it changes: GET /v1/sessions/{id}/live, server-sent events with one frame per
// change, the last one `ended`. Read with fetch rather than EventSource: the stream ends on its
// own after that frame (EventSource would connect again), and a 401 goes through the client.
import { useEffect, useState } from 'preact/hooks';
import { send, worthRetrying } from './client.js';
import type { BrowserSession } from './types.js';

/** Calls `onFrame` with each `data:` frame's JSON until the stream ends or `signal` aborts it. */
async function readEvents(path: string, signal: AbortSignal, onFrame: (data: unknown) => void): Promise<void> {
  const res = await send(path, { signal });
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      // An `event: error` frame is the Error object: the session can no longer be followed.
      if (data && !event.startsWith('event: error')) onFrame(JSON.parse(data));
      end = buffer.indexOf('\n\n');
    }
  }
}

/** How soon a feed cut before its session ended is opened again. */
const RECONNECT_MS = 3_000;

/**
 * The newest state of `initial` while it is live; unchanged once it has ended. A feed cut
 * before its `ended` frame (a gateway restarting, a network blip, a busy upstream) is opened
 * again, as EventSource would; one refused for good (the session deleted) leaves the page at
 * its last state.
 */
export function useLiveSession(initial: BrowserSession | undefined): BrowserSession | undefined {
  const [latest, setLatest] = useState(initial);
  useEffect(() => setLatest(initial), [initial]);
  const id = initial?.status === 'live' ? initial.id : undefined;

  useEffect(() => {
    if (!id) return;
    const abort = new AbortController();
    const { signal } = abort;
    (async () => {
      let ended = false;
      while (!ended && !signal.aborted) {
        try {
          await readEvents(`/v1/sessions/${encodeURIComponent(id)}/live`, signal, (data) => {
            const { session } = data as { session: BrowserSession };
            ended = session.status === 'ended';
            setLatest(session);
          });
        } catch (err) {
          if (signal.aborted || !worthRetrying(err)) return;
        }
        if (!ended) await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
      }
    })();
    return () => abort.abort();
  }, [id]);

  return latest;
}
