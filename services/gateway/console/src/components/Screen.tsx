import { useEffect, useRef } from 'preact/hooks';
import { ApiFailure, api } from '../api/client.js';
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

/** How soon a run's session the recorder has not heard of yet is asked for again. */
const UNKNOWN_RETRY_MS = 1_000;

/**
 * A browser session's screen by its id (an agent run's): live while it runs, its replay once
 * ended. The run names its session as the browser opens; the session-recorder hears of it a
 * moment later, through the SESSIONS stream. So while the run works, not_found means "not
 * yet": the page says the browser is starting and asks again.
 */
export function SessionScreen({ sessionId, running }: { sessionId: string; running: boolean }) {
  const loaded = useLoad(
    (signal) => api<{ session: BrowserSession }>(`/v1/sessions/${encodeURIComponent(sessionId)}`, { signal }),
    [sessionId],
  );
  const session = useLiveSession(loaded.data?.session);
  const starting = running && loaded.error instanceof ApiFailure && loaded.error.code === 'not_found';
  const { reload } = loaded;
  useEffect(() => {
    if (!starting) return;
    const timer = setTimeout(reload, UNKNOWN_RETRY_MS);
    return () => clearTimeout(timer);
  }, [starting, loaded.error, reload]);
  if (session) return <Screen session={session} />;
  return (
    <section>
      <h2 id="screen">Live view</h2>
      {starting ? <p>The run's browser is starting…</p> : <Alert error={loaded.error} retry={loaded.reload} />}
      {!loaded.error && <p>Loading…</p>}
    </section>
  );
}
