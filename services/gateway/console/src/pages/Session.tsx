import { useRef } from 'preact/hooks';
import { api } from '../api/client.js';
import { useLiveSession } from '../api/live-session.js';
import type { BrowserSession } from '../api/types.js';
import { useLoad } from '../api/use-load.js';
import { Alert } from '../components/Alert.js';
import { Evidence } from '../components/Evidence.js';
import { NetworkLog } from '../components/NetworkLog.js';
import { IdHeading } from '../components/PageHeading.js';
import { Time } from '../components/Time.js';
import { formatBytes, formatCredits, formatDuration } from '../lib/format.js';
import { statusOf, taskOf } from './Sessions.js';

export function SessionPage({ id }: { id: string }) {
  const loaded = useLoad(
    (signal) => api<{ session: BrowserSession }>(`/v1/sessions/${encodeURIComponent(id)}`, { signal }),
    [id],
  );
  const session = useLiveSession(loaded.data?.session);
  return (
    <>
      <IdHeading kind="Session" id={id} />
      <Alert error={loaded.error} retry={loaded.reload} />
      {!session && !loaded.error && <p>Loading…</p>}
      {session && (
        <>
          <Facts session={session} />
          <Screen session={session} />
          {session.recording && <Evidence sessionId={session.id} />}
          <NetworkLog sessionId={session.id} refresh={session.status} />
        </>
      )}
    </>
  );
}

function Facts({ session: s }: { session: BrowserSession }) {
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>{statusOf(s)}</dd>
      <dt>Task</dt>
      <dd>{taskOf(s)}</dd>
      <dt>Started</dt>
      <dd>
        <Time iso={s.startedAt} />
      </dd>
      <dt>Ended</dt>
      <dd>
        <Time iso={s.endedAt} fallback="Still running" />
      </dd>
      <dt>Duration</dt>
      <dd>{formatDuration(s.durationSeconds)}</dd>
      <dt>Pages</dt>
      <dd>{s.pageCount}</dd>
      <dt>Credits</dt>
      <dd>{formatCredits(s.usage.credits)}</dd>
      <dt>Recording</dt>
      <dd>
        {s.recording ? `${s.recording.chunks} chunks, ${formatBytes(s.recording.bytes)}` : 'Nothing recorded yet'}
      </dd>
    </dl>
  );
}

/**
 * The replay page, framed: while the session runs it opens on its live view, so the frame is
 * titled "Live view"; once ended, "Replay". The live feed sends a fresh signed link with every
 * change; the frame keeps the link it was given until the session ends, rather than reloading.
 */
function Screen({ session }: { session: BrowserSession }) {
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
