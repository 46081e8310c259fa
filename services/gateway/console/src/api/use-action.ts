// One write a person asked for: busy while it runs, its outcome to read out, its failure to show.
import type { ComponentChildren } from 'preact';
import { useCallback, useState } from 'preact/hooks';

export interface Action {
  busy: boolean;
  error: unknown;
  /** The outcome to put in the page's status element. */
  said: ComponentChildren;
  /** Runs `action`; what it answers becomes `said`. True when it succeeded. */
  run: (action: () => Promise<ComponentChildren>) => Promise<boolean>;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [said, setSaid] = useState<ComponentChildren>('');
  const run = useCallback(async (action: () => Promise<ComponentChildren>) => {
    setBusy(true);
    setError(undefined);
    // Emptied first, so the same outcome twice is read out twice.
    setSaid('');
    try {
      setSaid(await action());
      return true;
    } catch (err) {
      setError(err);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, said, run };
}
