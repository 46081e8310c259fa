import { api } from '../api/client.js';
import { useLiveSession } from '../api/live-session.js';
import type { BrowserSession } from '../api/types.js';
import { useLoad } from '../api/use-load.js';
import { Alert } from '../components/Alert.js';
import { Evidence } from '../components/Evidence.js';
import { NetworkLog } from '../components/NetworkLog.js';
import { IdHeading } from '../components/PageHeading.js';
import { Screen } from '../components/Screen.js';
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
