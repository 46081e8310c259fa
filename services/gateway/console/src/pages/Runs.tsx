import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { query } from '../api/client.js';
import type { RunSummary } from '../api/types.js';
import { usePages } from '../api/use-pages.js';
import { Alert } from '../components/Alert.js';
import { CopyId } from '../components/Copy.js';
import { PageHeading } from '../components/PageHeading.js';
import { StartRun } from '../components/StartRun.js';
import { Table } from '../components/Table.js';
import { Time } from '../components/Time.js';
import { formatCredits } from '../lib/format.js';

function runState(run: RunSummary): string {
  if (run.status === 'settled') return run.outcome ?? 'settled';
  if (run.status === 'paused') return `paused (${run.pausedFor ?? 'waiting'})`;
  return run.status;
}

/** The run's state as a badge whose colour says at a glance how it went (its words say the same). */
export function RunBadge({ run }: { run: RunSummary }) {
  const tone =
    run.status === 'settled'
      ? { completed: 'ok', failed: 'bad', cancelled: 'plain' }[run.outcome ?? 'cancelled']
      : run.status === 'paused'
        ? 'wait'
        : 'busy';
  return <span class={`badge tone-${tone}`}>{runState(run)}</span>;
}

/** The models the runs listed named, each once: what the deployment is known to serve. */
const modelsOf = (runs: RunSummary[] | undefined) => [...new Set((runs ?? []).map((r) => r.model).filter(Boolean))];

export function Runs() {
  const { route } = useLocation();
  const [status, setStatus] = useState('');
  const runs = usePages<{ runs: RunSummary[]; nextCursor: string | null }, RunSummary>(
    (cursor) => `/v1/agent${query({ status, limit: 50, cursor })}`,
    (answer) => answer.runs,
    [status],
  );

  const open = (event: Event) => {
    event.preventDefault();
    const id = String(new FormData(event.currentTarget as HTMLFormElement).get('run') ?? '').trim();
    if (id) route(`/console/runs/${encodeURIComponent(id)}`);
  };

  return (
    <>
      <PageHeading title="Agent runs">Agent runs</PageHeading>
      <StartRun models={modelsOf(runs.rows)} />
      <h2 id="runs">Runs</h2>
      <div class="filters">
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">Any</option>
            <option value="queued">Queued</option>
            <option value="running">Running</option>
            <option value="paused">Paused</option>
            <option value="settled">Settled</option>
          </select>
        </label>
        <form class="filters" onSubmit={open}>
          <label>
            Run id
            <input name="run" type="text" required autocomplete="off" spellcheck={false} />
          </label>
          <button type="submit">Open run</button>
        </form>
      </div>
      <Alert error={runs.error} retry={runs.retry} />
      <Table
        caption="Agent runs"
        rows={runs.rows}
        error={runs.error}
        rowKey={(r) => r.id}
        empty={status ? 'No runs have this status.' : 'No agent runs yet: start one with the form above.'}
        columns={[
          {
            header: 'Run',
            cell: (r) => <CopyId id={r.id} what={`run id ${r.id}`} short href={`/console/runs/${r.id}`} />,
          },
          { header: 'Status', cell: (r) => <RunBadge run={r} /> },
          { header: 'Task', cell: (r) => <span class="clip">{r.task}</span> },
          { header: 'Created', cell: (r) => <Time iso={r.createdAt} relative /> },
          { header: 'Steps', cell: (r) => r.steps, numeric: true },
          { header: 'Credits', cell: (r) => formatCredits(r.usage.credits), numeric: true },
        ]}
      />
      {runs.hasMore && (
        <button type="button" onClick={runs.more}>
          Show older runs
        </button>
      )}
    </>
  );
}
