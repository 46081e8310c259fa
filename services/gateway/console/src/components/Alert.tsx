import { useLayoutEffect, useRef } from 'preact/hooks';
import { ApiFailure, worthRetrying } from '../api/client.js';

interface Props {
  error: unknown;
  /**
   * What the failure means on this page, said instead of the API's own message: that one is
   * written for a developer ("The request carries no valid credential").
   */
  explain?: (failure: ApiFailure) => string | undefined;
  /** Loads again what failed to load: offered as "Try again" when asking again may help. */
  retry?: () => void;
}

/**
 * What went wrong, read out at once: the page's words or the API's message, the fields a bad
 * request names, and, for a failed load, a way to try again.
 */
export function Alert({ error, explain, retry }: Props) {
  if (!error) return null;
  const message =
    error instanceof ApiFailure
      ? (explain?.(error) ?? error.message)
      : error instanceof Error && error.name !== 'AbortError'
        ? 'The console could not reach the server. Check your connection and try again.'
        : null;
  if (!message) return null;
  const issues = error instanceof ApiFailure ? issuesOf(error) : [];
  return (
    <div role="alert" class="alert">
      <p>{message}</p>
      {issues.length > 0 && (
        <ul>
          {issues.map((issue) => (
            <li key={issue}>{issue}</li>
          ))}
        </ul>
      )}
      {error instanceof ApiFailure && retryAfter(error)}
      {retry && worthRetrying(error) && <TryAgain retry={retry} />}
    </div>
  );
}

/**
 * The button goes with the alert as the load starts again; focus it held moves to the page's
 * heading, rather than to the start of the document. (A layout effect: its cleanup runs while
 * the button is still in the page, a passive one's only after it left.)
 */
function TryAgain({ retry }: { retry: () => void }) {
  const button = useRef<HTMLButtonElement>(null);
  useLayoutEffect(
    () => () => {
      if (button.current && button.current === document.activeElement)
        queueMicrotask(() => document.querySelector<HTMLElement>('h1')?.focus());
    },
    [],
  );
  return (
    <button type="button" ref={button} onClick={retry}>
      Try again
    </button>
  );
}

function issuesOf(error: ApiFailure): string[] {
  const issues = error.details?.issues;
  if (!Array.isArray(issues)) return [];
  return issues.map((i: { path?: string; message?: string }) => `${i.path ?? ''}: ${i.message ?? ''}`);
}

function retryAfter(error: ApiFailure) {
  const seconds = error.details?.retryAfterSeconds;
  return typeof seconds === 'number' ? <p>Try again in {Math.ceil(seconds)} seconds.</p> : null;
}
