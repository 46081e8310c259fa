import { useRef } from 'preact/hooks';
import { api } from '../api/client.js';
import { useLiveSession } from '../api/live-session.js';
import type { BrowserSession } from '../api/types.js';
import { useLoad } from '../api/use-load.js';
import { Alert } from './Alert.js';

/**
 * The replay page, framed: while the session runs it opens on its live view, so the frame is
 * titled "Live view"; once ended, "Replay". The live feed sends a fresh signed link with every
 * change; the frame keeps the link it was given until the session ends, rather than reloading.
 */
export function Screen({ session }: { session: BrowserSession }) {
  const shown = useRef<{ status: string; url: string } | null>(null);
  if (session.replayUrl && shown.current?.status !== session.status)
    shown.current = { status: session.status, url: session.replayUrl };
  const frame = shown.current;
  const live = session.status === 'live';
  return (
    <section>
      <h2 id="screen">{live ? 'Live view' : 'Replay'}</h2>
      {frame ? (
        <iframe class="screen" title={live ? 'Live view' : 'Replay'} src={frame.url} />
      ) : (
        <p>{live ? 'The live view appears once the first page is recorded.' : 'This session has no recording.'}</p>
      )}
    </section>
  );
}

/** A browser session's screen by its id (an agent run's): live while it runs, its replay once ended. */
export function SessionScreen({ sessionId }: { sessionId: string }) {
  const loaded = useLoad(
    (signal) => api<{ session: BrowserSession }>(`/v1/sessions/${encodeURIComponent(sessionId)}`, { signal }),
    [sessionId],
  );
  const session = useLiveSession(loaded.data?.session);
  if (session) return <Screen session={session} />;
  return (
    <section>
      <h2 id="screen">Live view</h2>
      <Alert error={loaded.error} retry={loaded.reload} />
      {!loaded.error && <p>Loading…</p>}
    </section>
  );
}
