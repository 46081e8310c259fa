import { useLocation } from 'preact-iso';
import { api } from '../api/client.js';
import type { Run } from '../api/types.js';
import { useAction } from '../api/use-action.js';
import { Alert } from './Alert.js';

/** The caps a run gets when the form leaves them as they are (POST /v1/agent's defaults). */
const DEFAULT_STEPS = 50;
const DEFAULT_CREDITS = 100;

/**
 * Starts an agent run (POST /v1/agent) and opens its page, where it is followed as it goes. The
 * deployment lists no models: `models` are those its runs named, offered as suggestions; a name it
 * does not serve is refused with the names it does (the API's message, shown in the alert).
 */
export function StartRun({ models }: { models: string[] }) {
  const { route } = useLocation();
  const action = useAction();

  const start = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const field = (name: string) => String(data.get(name) ?? '').trim();
    const body = {
      task: field('task'),
      ...(field('url') && { url: field('url') }),
      ...(field('model') && { model: field('model') }),
      maxSteps: Number(field('maxSteps') || DEFAULT_STEPS),
      maxCredits: Number(field('maxCredits') || DEFAULT_CREDITS),
    };
    action.run(async () => {
      const answer = await api<{ id: string; run: Run }>('/v1/agent', { method: 'POST', body });
      route(`/console/runs/${encodeURIComponent(answer.id)}`);
      return 'The run is started.';
    });
  };

  return (
    <section aria-labelledby="start-run">
      <h2 id="start-run">Start a run</h2>
      <form onSubmit={start} class="stack">
        <label>
          Task
          <textarea
            name="task"
            required
            maxLength={20_000}
            rows={3}
            aria-describedby="task-help"
            placeholder="Find the price of the blue mug and answer with it."
          />
        </label>
        <p id="task-help" class="note">
          What to do, in your words. The run works in a recorded browser; you can follow it, answer its questions and
          take the wheel on its page.
        </p>
        <label>
          Start URL
          <input
            name="url"
            type="url"
            maxLength={8192}
            placeholder="https://example.com/"
            aria-describedby="url-help"
          />
        </label>
        <p id="url-help" class="note">
          Where its browser starts (optional: without one, the model navigates first).
        </p>
        <label>
          Model
          <input
            name="model"
            type="text"
            maxLength={64}
            list="models-used"
            autocomplete="off"
            spellcheck={false}
            aria-describedby="model-help"
          />
        </label>
        <datalist id="models-used">
          {models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <p id="model-help" class="note">
          Empty: the deployment's default. A name it does not serve is refused with the names it does.
        </p>
        <div class="fields">
          <label>
            Step cap
            <input name="maxSteps" type="number" min={1} max={1000} step={1} defaultValue={String(DEFAULT_STEPS)} />
          </label>
          <label>
            Spend cap (credits)
            <input
              name="maxCredits"
              type="number"
              min={1}
              max={1_000_000}
              step={1}
              defaultValue={String(DEFAULT_CREDITS)}
            />
          </label>
        </div>
        <p class="note">The run stops before another step would pass either cap; what it did stays billed.</p>
        <button type="submit" class="primary" disabled={action.busy}>
          Start run
        </button>
      </form>
      <Alert error={action.error} />
    </section>
  );
}
