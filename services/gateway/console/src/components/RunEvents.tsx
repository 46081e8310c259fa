import type { RunEvent } from '../api/types.js';
import { formatClock, formatFullDateTime } from '../lib/format.js';

/**
 * The run's events, oldest first, as a timeline: the second each happened (the date is the run's),
 * what kind it is, what it says. New ones are appended as they come.
 */
export function RunEvents({ events }: { events: RunEvent[] }) {
  return (
    <section>
      <h2 id="events">Events</h2>
      {events.length === 0 ? (
        <p>No events yet.</p>
      ) : (
        <ol class="events" aria-label="Events">
          {events.map((e) => (
            <li key={e.seq} class={`event level-${e.level}`}>
              <time dateTime={e.at} title={formatFullDateTime(e.at)}>
                {formatClock(e.at)}
              </time>{' '}
              <span class="kind">{e.kind.replace(/_/g, ' ')}</span> <span class="message">{e.message}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
