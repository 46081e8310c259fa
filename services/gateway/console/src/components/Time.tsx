import { formatDateTime } from '../lib/format.js';

/** A moment in the person's locale; the ISO form in `datetime` and as the tooltip. */
export function Time({ iso, fallback = '—' }: { iso: string | null | undefined; fallback?: string }) {
  if (!iso) return <>{fallback}</>;
  return (
    <time dateTime={iso} title={iso}>
      {formatDateTime(iso)}
    </time>
  );
}
