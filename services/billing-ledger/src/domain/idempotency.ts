// What makes two requests "the same" for an idempotency key: the operation and
// every field that changes the outcome, hashed. Meters are sorted first, so
// the same quantities in another order are the same request.
import { createHash } from 'node:crypto';
import type { PricedUsage } from '@wap/billing';

export function requestHash(operation: string, fields: Record<string, unknown>): string {
  const canonical = JSON.stringify({ operation, ...fields }, (_key, value) =>
    typeof value === 'bigint' ? value.toString() : value instanceof Date ? value.toISOString() : value,
  );
  return createHash('sha256').update(canonical).digest('base64url');
}

/** Quantities only: a retry after a price change is still the same request. */
export const quantitiesOf = (usage: PricedUsage) => usage.meters.map(({ meter, quantity }) => ({ meter, quantity }));
