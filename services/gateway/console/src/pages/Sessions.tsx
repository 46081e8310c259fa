import { useState } from 'preact/hooks';
import { query } from '../api/client.js';
import type { BrowserSession } from '../api/types.js';
import { usePages } from '../api/use-pages.js';
import { Alert } from '../components/Alert.js';
import { CopyId } from '../components/Copy.js';
import { PageHeading } from '../components/PageHeading.js';
import { Table } from '../components/Table.js';
import { Time } from '../components/Time.js';
import { formatCredits, formatDuration } from '../lib/format.js';

interface Page {
  sessions: BrowserSession[];
  nextCursor: string | null;
}

const TASKS = { connect: 'CDP client', agent: 'Agent run', scrape: 'Scrape render' } as const;

/** What a session served, linked to the run when it was an agent's. */
export function taskOf(s: BrowserSession) {
  if (s.task.kind === 'agent' && s.task.run)
    return (
      <>
        Agent run{' '}
        <a class="short-id" href={`/console/runs/${s.task.run}`} title={s.task.run}>
          {s.task.run}
        </a>
      </>
    );
  return TASKS[s.task.kind] ?? s.task.kind;
}

export function statusOf(s: BrowserSession) {
  const words = s.status === 'live' ? 'Live' : `Ended (${(s.outcome ?? 'closed').replace(/_/g, ' ')})`;
  return <span class={`badge tone-${s.status === 'live' ? 'busy' : 'plain'}`}>{words}</span>;
}

export function Sessions() {
  const [status, setStatus] = useState('');
  const [task, setTask] = useState('');
  const sessions = usePages<Page, BrowserSession>(
    (cursor) => `/v1/sessions${query({ status, task, limit: 50, cursor })}`,
    (answer) => answer.sessions,
    [status, task],
  );

  return (
    <>
      <PageHeading title="Sessions">Sessions</PageHeading>
      <p>Every browser session is recorded: open one for its replay, its network log and its evidence.</p>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">Any</option>
            <option value="live">Live</option>
            <option value="ended">Ended</option>
          </select>
        </label>
        <label>
          Task
          <select value={task} onChange={(e) => setTask(e.currentTarget.value)}>
            <option value="">Any</option>
            {Object.entries(TASKS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </form>
      <Alert error={sessions.error} retry={sessions.retry} />
      <Table
        caption="Sessions"
        rows={sessions.rows}
        error={sessions.error}
        rowKey={(s) => s.id}
        empty={
          status || task
            ? 'No sessions match these filters.'
            : 'No sessions yet. One starts when a client connects to /connect, an agent run starts, or a scrape renders a page in a browser.'
        }
        columns={[
          {
            header: 'Session',
            cell: (s) => <CopyId id={s.id} what={`session id ${s.id}`} short href={`/console/sessions/${s.id}`} />,
          },
          { header: 'Status', cell: statusOf },
          { header: 'Task', cell: taskOf },
          { header: 'Started', cell: (s) => <Time iso={s.startedAt} relative /> },
          { header: 'Duration', cell: (s) => formatDuration(s.durationSeconds), numeric: true },
          { header: 'Pages', cell: (s) => s.pageCount, numeric: true },
          { header: 'Credits', cell: (s) => formatCredits(s.usage.credits), numeric: true },
        ]}
      />
      {sessions.hasMore && (
        <button type="button" onClick={sessions.more}>
          Show older sessions
        </button>
      )}
    </>
  );
}
