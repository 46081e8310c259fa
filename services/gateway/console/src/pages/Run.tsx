import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { useRunEvents } from '../api/run-events.js';
import type { RunEvent, Run as RunObject, RunRecord } from '../api/types.js';
import { type Loaded, useLoad } from '../api/use-load.js';
import { Alert } from '../components/Alert.js';
import { IdHeading } from '../components/PageHeading.js';
import { RunControl } from '../components/RunControl.js';
import { modelUse, RunEvents } from '../components/RunEvents.js';
import { RunPause } from '../components/RunPause.js';
import { SessionScreen } from '../components/Screen.js';
import { Time } from '../components/Time.js';
import { formatCredits } from '../lib/format.js';
import { RunBadge } from './Runs.js';

export function Run({ id }: { id: string }) {
  const path = `/v1/agent/${encodeURIComponent(id)}`;
  const loaded = useLoad((signal) => api<{ run: RunObject }>(path, { signal }), [path]);
  const records = useLoad((signal) => api<{ data: RunRecord[] }>(`${path}/results?limit=500`, { signal }), [path]);
  // The newest run object, whichever answer brought it (a read, an answer, a take-over).
  const [run, setRun] = useState<RunObject>();
  useEffect(() => setRun(loaded.data?.run), [loaded.data]);

  const feed = useRunEvents(id, () => {
    loaded.reload();
    records.reload();
  });

  return (
    <>
      <IdHeading kind="Run" id={id} />
      <Alert error={loaded.error} retry={loaded.reload} />
      {!run && !loaded.error && <p>Loading…</p>}
      {/* Until the run is read (or when it cannot be: its alert says why), nothing of it is shown. */}
      {run && (
        <>
          <Facts run={run} events={feed.events} />
          <RunPause run={run} onAnswered={setRun} />
          <RunControl run={run} onChange={setRun} />
          {/* Its browser as it works (a replay once the session ended); none until the run has one. */}
          {run.sessionId && <SessionScreen sessionId={run.sessionId} running={run.status !== 'settled'} />}
          {run.plan.length > 0 && (
            <section>
              <h2 id="plan">Plan</h2>
              <ol aria-label="Plan">
                {run.plan.map((step, i) => (
                  <li key={i}>{step}</li>
                ))}
              </ol>
            </section>
          )}
          {run.answer !== null && run.answer !== undefined && (
            <section>
              <h2 id="answer">Answer</h2>
              <Answer answer={run.answer} />
            </section>
          )}
          <Alert error={feed.error} />
          <RunEvents events={feed.events} />
          <Records records={records} settled={run.status === 'settled'} />
        </>
      )}
    </>
  );
}

/** A text answer reads as text; anything else as the JSON the API gives. */
function Answer({ answer }: { answer: unknown }) {
  if (typeof answer === 'string') return <p class="answer">{answer}</p>;
  return <pre class="json">{JSON.stringify(answer, null, 2)}</pre>;
}

/** What the run appended, each record with its time; "yet" only while the run can still append. */
function Records({ records, settled }: { records: Loaded<{ data: RunRecord[] }>; settled: boolean }) {
  const rows = records.data?.data;
  return (
    <section>
      <h2 id="records">Records</h2>
      <Alert error={records.error} retry={records.reload} />
      {rows?.length ? (
        <ol class="records" aria-label="Records">
          {rows.map((r) => (
            <li key={r.seq}>
              <Time iso={r.at} />
              <pre class="json">{JSON.stringify(r.record, null, 2)}</pre>
            </li>
          ))}
        </ol>
      ) : rows ? (
        <p>{settled ? 'The run appended no records.' : 'No records yet.'}</p>
      ) : (
        !records.error && <p>Loading…</p>
      )}
    </section>
  );
}

function Facts({ run, events }: { run: RunObject; events: RunEvent[] }) {
  const use = modelUse(events);
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>
        <RunBadge run={run} />
        {run.reason && ` — ${run.reason.message} (${run.reason.code})`}
      </dd>
      <dt>Task</dt>
      <dd class="task">{run.task}</dd>
      {run.url && (
        <>
          <dt>Start page</dt>
          <dd class="url">{run.url}</dd>
        </>
      )}
      <dt>Spend</dt>
      <dd>
        {formatCredits(run.usage.credits)} of at most {formatCredits(run.maxCredits)} credits
      </dd>
      <dt>Steps</dt>
      <dd>
        {run.steps} of at most {run.maxSteps}
      </dd>
      <dt>Model</dt>
      <dd>{run.model || '—'}</dd>
      <dt>Step profile</dt>
      <dd>{use.profile || 'None yet'}</dd>
      <dt>Model tokens</dt>
      <dd>
        {use.steps === 0
          ? 'None yet'
          : `${use.input.toLocaleString()} in, ${use.output.toLocaleString()} out over ${use.steps} ${use.steps === 1 ? 'step' : 'steps'}`}
      </dd>
      <dt>Created</dt>
      <dd>
        <Time iso={run.createdAt} />
      </dd>
      <dt>Finished</dt>
      <dd>
        <Time iso={run.finishedAt} fallback="Not yet" />
      </dd>
      <dt>Browser session</dt>
      <dd>{run.sessionId ? <a href={`/console/sessions/${run.sessionId}`}>{run.sessionId}</a> : 'None yet'}</dd>
    </dl>
  );
}
