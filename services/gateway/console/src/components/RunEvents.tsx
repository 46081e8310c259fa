import type { RunEvent } from '../api/types.js';
import { formatClock, formatFullDateTime } from '../lib/format.js';

/** A step's model tokens as its event carries them (docs/agent.md, "Events"); none for other events. */
export function stepTokens(e: RunEvent): { profile: string; input: number; output: number } | null {
  const d = e.data;
  if (e.kind !== 'step' || !d || typeof d.inputTokens !== 'number' || typeof d.outputTokens !== 'number') return null;
  return { profile: typeof d.profile === 'string' ? d.profile : '', input: d.inputTokens, output: d.outputTokens };
}

/** What a run's steps cost the model so far, and the profile its last step was put in. */
export function modelUse(events: RunEvent[]): { profile: string; input: number; output: number; steps: number } {
  const use = { profile: '', input: 0, output: 0, steps: 0 };
  for (const e of events) {
    const t = stepTokens(e);
    if (!t) continue;
    use.profile = t.profile || use.profile;
    use.input += t.input;
    use.output += t.output;
    use.steps += 1;
  }
  return use;
}

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
              <Tokens event={e} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** "94 in, 12 out": the tokens the model read and wrote for this step. */
function Tokens({ event }: { event: RunEvent }) {
  const t = stepTokens(event);
  if (!t) return null;
  return (
    <span class="tokens" title="Model tokens of this step: read, written">
      {' '}
      ({t.input.toLocaleString()} in, {t.output.toLocaleString()} out)
    </span>
  );
}
