import { useLocation } from 'preact-iso';
import { api, query } from '../api/client.js';
import { useSession } from '../api/session.js';
import type { BrowserSession, Call, Run } from '../api/types.js';
import { useLoad } from '../api/use-load.js';
import { Alert } from '../components/Alert.js';
import { PageHeading } from '../components/PageHeading.js';
import { Table } from '../components/Table.js';
import { Time } from '../components/Time.js';
import { formatCredits } from '../lib/format.js';
import { openedRuns } from '../lib/opened-runs.js';

/** At most this many runs are read for the list (one GET each). */
const SHOWN = 30;

/**
 * Run ids the workspace's records name: the browser sessions of agent runs, the agent's billable
 * calls, and the runs opened here before, newest first, without repeats.
 */
async function runIds(workspaceId: string, signal: AbortSignal): Promise<string[]> {
  const [sessions, calls] = await Promise.all([
    api<{ sessions: BrowserSession[] }>(`/v1/sessions${query({ task: 'agent', limit: 100 })}`, { signal }),
    api<{ calls: Call[] }>(`/v1/usage/calls${query({ limit: 100 })}`, { signal }).catch(() => ({ calls: [] })),
  ]);
  const ids = [
    ...sessions.sessions.flatMap((s) => (s.task.run ? [s.task.run] : [])),
    ...calls.calls.filter((c) => c.capability === 'agent').map((c) => c.reference),
    ...openedRuns(workspaceId),
  ];
  return [...new Set(ids)].slice(0, SHOWN);
}

async function runsOf(workspaceId: string, signal: AbortSignal): Promise<Run[]> {
  const ids = await runIds(workspaceId, signal);
  const runs = await Promise.all(
    ids.map((id) =>
      api<{ run: Run }>(`/v1/agent/${encodeURIComponent(id)}`, { signal }).then(
        (a) => a.run,
        () => undefined, // deleted, or another workspace's: not listed
      ),
    ),
  );
  return runs.filter((r): r is Run => !!r).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

export function runState(run: Run): string {
  if (run.status === 'settled') return run.outcome ?? 'settled';
  if (run.status === 'paused') return `paused (${run.pausedFor ?? 'waiting'})`;
  return run.status;
}

export function Runs() {
  const { session } = useSession();
  const { route } = useLocation();
  const runs = useLoad((signal) => runsOf(session.workspace.id, signal), [session.workspace.id]);

  const open = (event: Event) => {
    event.preventDefault();
    const id = String(new FormData(event.currentTarget as HTMLFormElement).get('run') ?? '').trim();
    if (id) route(`/console/runs/${encodeURIComponent(id)}`);
  };

  return (
    <>
      <PageHeading title="Agent runs">Agent runs</PageHeading>
      <p>
        The API has no list of runs: this page shows the runs named by the workspace's browser sessions and billable
        calls, and the ones opened here before. Open any other by its id.
      </p>
      <form class="filters" onSubmit={open}>
        <label>
          Run id
          <input name="run" type="text" required autocomplete="off" spellcheck={false} />
        </label>
        <button type="submit">Open run</button>
      </form>
      <Alert error={runs.error} />
      <Table
        caption="Agent runs"
        rows={runs.data}
        rowKey={(r) => r.id}
        empty="No runs found yet."
        columns={[
          { header: 'Run', cell: (r) => <a href={`/console/runs/${r.id}`}>{r.id}</a> },
          { header: 'Status', cell: runState },
          { header: 'Task', cell: (r) => <span class="clip">{r.task}</span> },
          { header: 'Created', cell: (r) => <Time iso={r.createdAt} /> },
          { header: 'Credits', cell: (r) => formatCredits(r.usage.credits), numeric: true },
        ]}
      />
    </>
  );
}
