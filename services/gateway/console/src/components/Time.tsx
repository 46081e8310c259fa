import { useEffect, useState } from 'preact/hooks';
import { formatDateTime, formatFullDateTime, formatRelative } from '../lib/format.js';

interface Props {
  iso: string | null | undefined;
  fallback?: string;
  /** How long ago or how soon ("3 minutes ago"), kept current while the page stays open: for lists. */
  relative?: boolean;
}

/** A moment in the person's locale; the ISO form in `datetime`, the exact local time as the tooltip. */
export function Time({ iso, fallback = '—', relative = false }: Props) {
  const now = useClock(relative);
  if (!iso) return <>{fallback}</>;
  return (
    <time dateTime={iso} title={formatFullDateTime(iso)}>
      {relative ? formatRelative(iso, now) : formatDateTime(iso)}
    </time>
  );
}

/** One timer for every relative time on the page, rather than one each. */
const ticking = new Set<(now: number) => void>();
let timer: ReturnType<typeof setInterval> | undefined;
const TICK_MS = 30_000;

/** Now, renewed every half minute while `on`. */
function useClock(on: boolean): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!on) return;
    ticking.add(setNow);
    timer ??= setInterval(() => {
      const t = Date.now();
      for (const tick of ticking) tick(t);
    }, TICK_MS);
    return () => {
      ticking.delete(setNow);
      if (ticking.size === 0) {
        clearInterval(timer);
        timer = undefined;
      }
    };
  }, [on]);
  return now;
}
