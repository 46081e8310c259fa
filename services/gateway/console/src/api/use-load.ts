// Loading what a page shows: the answer, the failure, and a way to load it again.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `deps` change (and on reload); an answer that arrives after a newer ask is dropped. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  const latest = useRef(load);
  latest.current = load;

  // The caller names what the load depends on (deps); `round` is a reload.
  useEffect(() => {
    const abort = new AbortController();
    setLoading(true);
    latest.current(abort.signal).then(
      (value) => {
        if (abort.signal.aborted) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (err: unknown) => {
        if (abort.signal.aborted) return;
        setError(err);
        setLoading(false);
      },
    );
    return () => abort.abort();
  }, [...deps, round]);

  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { data, error, loading, reload };
}
