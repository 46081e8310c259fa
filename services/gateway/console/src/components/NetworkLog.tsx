import { useEffect, useState } from 'preact/hooks';
import { query } from '../api/client.js';
import { readNdjson } from '../api/ndjson.js';
import type { NetworkRequest } from '../api/types.js';
import { useLoad } from '../api/use-load.js';
import { formatBytes } from '../lib/format.js';
import { Alert } from './Alert.js';
import { Table } from './Table.js';

type Frame = { type: 'header' } | { type: 'request'; request: NetworkRequest };

const STATUSES = { '': 'Any', '2xx': '2xx', '3xx': '3xx', '4xx': '4xx', '5xx': '5xx', '0': 'No response' } as const;

/** Typing settles for this long before the log is asked again. */
const TYPING_MS = 300;

/** A session's network log with its filters: URL substring, status class, resource type. */
export function NetworkLog({ sessionId, refresh }: { sessionId: string; refresh: unknown }) {
  const [typed, setTyped] = useState('');
  const [url, setUrl] = useState('');
  const [status, setStatus] = useState('');
  const [type, setType] = useState('');

  useEffect(() => {
    const timer = setTimeout(() => setUrl(typed.trim()), TYPING_MS);
    return () => clearTimeout(timer);
  }, [typed]);

  const log = useLoad(
    async (signal) => {
      const path = `/v1/sessions/${encodeURIComponent(sessionId)}/network${query({ url, status, type })}`;
      const frames = await readNdjson<Frame>(path, signal);
      return frames.flatMap((f) => (f.type === 'request' ? [f.request] : []));
    },
    [sessionId, url, status, type, refresh],
  );

  return (
    <section>
      <h2 id="network">Network log</h2>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setUrl(typed.trim());
        }}
      >
        <label>
          URL contains
          <input type="search" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            {Object.entries(STATUSES).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Type
          <select value={type} onChange={(e) => setType(e.currentTarget.value)}>
            <option value="">Any</option>
            {['Document', 'Stylesheet', 'Script', 'Image', 'Font', 'Fetch', 'XHR', 'Media', 'Other'].map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <button type="submit">Filter</button>
      </form>
      <Alert error={log.error} retry={log.reload} />
      <Table
        caption="Network log"
        rows={log.loading && !log.data ? undefined : log.data}
        error={log.error}
        rowKey={(r) => r.id}
        empty={url || status || type ? 'No requests match.' : 'No requests were recorded.'}
        columns={[
          { header: 'Tab', cell: (r) => r.tab, numeric: true },
          { header: 'Method', cell: (r) => r.method },
          { header: 'URL', cell: (r) => <span class="url">{r.url}</span> },
          { header: 'Status', cell: (r) => (r.status === 0 ? (r.error ?? 'No response') : r.status) },
          { header: 'Type', cell: (r) => r.type },
          { header: 'Time', cell: (r) => `${r.durationMs} ms`, numeric: true },
          { header: 'Size', cell: (r) => formatBytes(r.responseBytes), numeric: true },
          { header: 'Remote address', cell: (r) => r.remoteAddress || '—' },
        ]}
      />
    </section>
  );
}
