// A list the API answers a page at a time (`nextCursor`): the first page, then more on request.
import { useState } from 'preact/hooks';
import { api } from './client.js';
import { useLoad } from './use-load.js';

export interface Pages<T> {
  rows: T[] | undefined;
  error: unknown;
  hasMore: boolean;
  more: () => void;
  /** Asks again for the page that failed: the first, or the next. */
  retry: () => void;
}

/** `pathOf(cursor)` names a page; `rowsOf` picks its rows. Asked again when `deps` change. */
export function usePages<A extends { nextCursor: string | null }, T>(
  pathOf: (cursor?: string) => string,
  rowsOf: (answer: A) => T[],
  deps: unknown[],
): Pages<T> {
  const [rows, setRows] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [failed, setFailed] = useState<unknown>();
  const first = useLoad(async (signal) => {
    const answer = await api<A>(pathOf(), { signal });
    setRows(rowsOf(answer));
    setCursor(answer.nextCursor);
    return answer;
  }, deps);

  const more = async () => {
    if (!cursor) return;
    setFailed(undefined);
    try {
      const answer = await api<A>(pathOf(cursor));
      setRows((before) => [...before, ...rowsOf(answer)]);
      setCursor(answer.nextCursor);
      setFailed(undefined);
    } catch (err) {
      setFailed(err);
    }
  };

  // A first page that failed has no rows to show, not an empty list.
  const shown = first.loading || first.error ? undefined : rows;
  const retry = () => (first.error ? first.reload() : more());
  return { rows: shown, error: first.error ?? failed, hasMore: !!cursor, more, retry };
}
