// Loading what a page shows: the answer, the failure, and a way to load it again.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/**
 * Runs `load` when `deps` change (and on reload); while it runs, an earlier failure is no
 * longer said (a page with nothing loaded yet says "Loading…" again). Leaving the page or
 * changing `deps` aborts what is in flight; a reload does not (an aborted request is a failed
 * one in the browser's eyes): the older answer is only dropped when a newer ask was made.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  const latest = useRef(load);
  latest.current = load;
  const asked = useRef(0);
  const lifetime = useRef(new AbortController());

  // The caller names what the load depends on (deps).
  useEffect(() => {
    const controller = new AbortController();
    lifetime.current = controller;
    return () => controller.abort();
  }, deps);

  // `round` is a reload.
  useEffect(() => {
    const { signal } = lifetime.current;
    const ask = ++asked.current;
    const current = () => !signal.aborted && ask === asked.current;
    setLoading(true);
    setError(undefined);
    latest.current(signal).then(
      (value) => {
        if (!current()) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (err: unknown) => {
        if (!current()) return;
        setError(err);
        setLoading(false);
      },
    );
  }, [...deps, round]);

  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { data, error, loading, reload };
}
