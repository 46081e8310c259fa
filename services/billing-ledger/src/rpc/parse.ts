// Request checks shared by the handlers. Every problem is collected, then one
// bad_request names them all (`details.issues`, field paths as in the contract).

import type { MeterName, MeterQuantity } from '@wap/billing';
import { ApiError } from '@wap/errors';
import { meterName } from '../views/convert.js';

/** Large enough for any real call, small enough that prices stay far inside int64. */
export const MAX_QUANTITY = 1_000_000_000_000n;
export const MAX_MILLICREDITS = 1_000_000_000_000n;
export const MAX_TTL_SECONDS = 7 * 24 * 3600;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class Issues {
  private readonly list: { path: string; message: string }[] = [];

  add(path: string, message: string): void {
    this.list.push({ path, message });
  }

  text(path: string, value: string, { min = 1, max }: { min?: number; max: number }): string {
    if (value.length < min) this.add(path, 'required');
    else if (value.length > max) this.add(path, `at most ${max} characters`);
    return value;
  }

  amount(path: string, value: bigint): bigint {
    if (value <= 0n || value > MAX_MILLICREDITS) this.add(path, `must be between 1 and ${MAX_MILLICREDITS}`);
    return value;
  }

  /** Seconds; 0 takes the default. */
  ttl(path: string, value: number, fallback: number): number {
    if (value === 0) return fallback;
    if (value < 0 || value > MAX_TTL_SECONDS) this.add(path, `must be between 1 and ${MAX_TTL_SECONDS}`);
    return value;
  }

  meters(path: string, meters: readonly { meter: number; quantity: bigint }[]): MeterQuantity[] {
    if (meters.length === 0) this.add(path, 'at least one meter');
    const seen = new Set<MeterName>();
    const parsed: MeterQuantity[] = [];
    for (const [i, m] of meters.entries()) {
      const name = meterName(m.meter);
      if (!name) this.add(`${path}.${i}.meter`, 'unknown meter');
      else if (seen.has(name)) this.add(`${path}.${i}.meter`, 'meter given twice');
      else if (m.quantity < 0n || m.quantity > MAX_QUANTITY) {
        this.add(`${path}.${i}.quantity`, `must be between 0 and ${MAX_QUANTITY}`);
      } else {
        seen.add(name);
        parsed.push({ meter: name, quantity: m.quantity });
      }
    }
    return parsed;
  }

  throwIfAny(): void {
    if (this.list.length > 0) throw new ApiError('bad_request', { issues: this.list });
  }
}

/** Ids are opaque: one that cannot exist answers like one that does not. */
export function requireId(resource: string, id: string): string {
  if (!UUID.test(id)) throw new ApiError('not_found', { resource, id });
  return id;
}
