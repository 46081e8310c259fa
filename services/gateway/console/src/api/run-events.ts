// A run's events as they happen: GET /v1/agent/{id}/events long-polled (`wait`), from the first,
// until the run is settled and every event is read.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, query, worthRetrying } from './client.js';
import type { RunEvent, RunStatus } from './types.js';

interface EventsPage {
  status: RunStatus;
  events: RunEvent[];
  next: number;
}

const LIMIT = 200;
/** The server holds a poll up to 30 s; ask for a little less so proxies never cut it. */
const WAIT_SECONDS = 25;
const RETRY_MS = 3_000;

export interface RunFeed {
  events: RunEvent[];
  error: unknown;
}

/** Events of run `id`; `onNews` is called after each batch (the run and its records changed). */
export function useRunEvents(id: string, onNews: () => void): RunFeed {
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [error, setError] = useState<unknown>();
  const news = useRef(onNews);
  news.current = onNews;

  useEffect(() => {
    const abort = new AbortController();
    const { signal } = abort;
    setEvents([]);
    (async () => {
      let after = 0;
      let settled = false;
      while (!signal.aborted) {
        try {
          const path: string = `/v1/agent/${encodeURIComponent(id)}/events${query({ after, limit: LIMIT, wait: settled ? 0 : WAIT_SECONDS })}`;
          const page: EventsPage = await api<EventsPage>(path, { signal });
          setError(undefined);
          if (page.events.length > 0) {
            setEvents((before) => [...before, ...page.events]);
            news.current();
          }
          after = page.next;
          settled = page.status === 'settled';
          if (settled && page.events.length < LIMIT) return;
        } catch (err) {
          if (signal.aborted) return;
          setError(err);
          // A run that does not exist, or a session that ended, will not get better by asking again.
          if (!worthRetrying(err)) return;
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        }
      }
    })();
    return () => abort.abort();
  }, [id]);

  return { events, error };
}
