import type { RunEvent } from '../api/types.js';
import { Time } from './Time.js';

/** The run's events, oldest first; new ones are appended as they come. */
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
              <Time iso={e.at} /> <span class="kind">{e.kind}</span> {e.message}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
