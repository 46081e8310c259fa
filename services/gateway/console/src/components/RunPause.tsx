import { api } from '../api/client.js';
import type { Run } from '../api/types.js';
import { useAction } from '../api/use-action.js';
import { Alert } from './Alert.js';

/** What a paused run waits for: an answer to its question, or a yes or no to what it asks. */
export function RunPause({ run, onAnswered }: { run: Run; onAnswered: (run: Run) => void }) {
  const action = useAction();
  if (run.status !== 'paused' || (run.pausedFor !== 'question' && run.pausedFor !== 'approval')) return null;

  const send = (body: Record<string, unknown>) =>
    action.run(async () => {
      const answer = await api<{ run: Run }>(`/v1/agent/${encodeURIComponent(run.id)}/answer`, {
        method: 'POST',
        body,
      });
      onAnswered(answer.run);
      return '';
    });

  const answer = (event: Event) => {
    event.preventDefault();
    const text = String(new FormData(event.currentTarget as HTMLFormElement).get('answer') ?? '').trim();
    if (text) send({ answer: text });
  };

  const approve = (event: Event) => {
    event.preventDefault();
    const cvc = String(new FormData(event.currentTarget as HTMLFormElement).get('cvc') ?? '').trim();
    send(cvc ? { approve: true, cvc } : { approve: true });
  };

  return (
    <section class="callout">
      <h2 id="waiting">{run.pausedFor === 'question' ? 'The run asks' : 'The run asks for approval'}</h2>
      {run.question && <p class="question">{run.question}</p>}
      {run.pausedFor === 'question' ? (
        <form onSubmit={answer} class="stack">
          <label>
            Answer
            <textarea name="answer" required maxLength={4000} rows={3} />
          </label>
          <p class="note">The run reads your answer as data: it cannot give it new instructions.</p>
          <button type="submit" class="primary" disabled={action.busy}>
            Send answer
          </button>
        </form>
      ) : (
        <form onSubmit={approve} class="stack">
          <label>
            Card CVC (only for a card purchase)
            <input name="cvc" type="text" inputMode="numeric" pattern="\d{3,4}" autocomplete="off" maxLength={4} />
          </label>
          <div class="actions">
            <button type="submit" class="primary" disabled={action.busy}>
              Approve
            </button>
            <button type="button" class="danger" disabled={action.busy} onClick={() => send({ approve: false })}>
              Deny
            </button>
          </div>
        </form>
      )}
      <Alert error={action.error} />
    </section>
  );
}
