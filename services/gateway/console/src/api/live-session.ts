// A session as it changes: GET /v1/sessions/{id}/live (server-sent events, one frame per change,
// the last one `ended`). EventSource sends the session cookie on its own (same origin, a GET).
import { useEffect, useState } from 'preact/hooks';
import type { BrowserSession } from './types.js';

/** The newest state of `initial` while it is live; unchanged once it has ended. */
export function useLiveSession(initial: BrowserSession | undefined): BrowserSession | undefined {
  const [latest, setLatest] = useState(initial);
  useEffect(() => setLatest(initial), [initial]);
  const id = initial?.status === 'live' ? initial.id : undefined;

  useEffect(() => {
    if (!id) return;
    const source = new EventSource(`/v1/sessions/${encodeURIComponent(id)}/live`);
    source.onmessage = (event) => {
      const { session } = JSON.parse(event.data) as { session: BrowserSession };
      setLatest(session);
      // The server ends the stream after this frame; EventSource would connect again.
      if (session.status === 'ended') source.close();
    };
    // A stream that fails (the session gone, signed out) is not retried: the page still shows the last state.
    source.onerror = () => source.close();
    return () => source.close();
  }, [id]);

  return latest;
}
