import { ApiFailure } from '../api/client.js';

interface Props {
  error: unknown;
  /**
   * What the failure means on this page, said instead of the API's own message: that one is
   * written for a developer ("The request carries no valid credential").
   */
  explain?: (failure: ApiFailure) => string | undefined;
}

/** What went wrong, read out at once: the page's words or the API's message, and the fields a bad request names. */
export function Alert({ error, explain }: Props) {
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
    </div>
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
