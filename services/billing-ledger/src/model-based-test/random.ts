// Seeded randomness for the model-based test, so a failure can be replayed
// with MODEL_SEED, and the random requests it sends.
import { ledger } from '@wap/proto';

export class Rng {
  constructor(private state: number) {}

  /** mulberry32: small, fast, and good enough to pick operations. */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  big(min: number, max: number): bigint {
    return BigInt(this.int(min, max));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T | undefined {
    return items.length ? items[Math.floor(this.next() * items.length)] : undefined;
  }

  /** One key of a weighted table. */
  weighted<K extends string>(weights: Record<K, number>): K {
    const entries = Object.entries(weights) as [K, number][];
    let roll = this.next() * entries.reduce((sum, [, w]) => sum + w, 0);
    for (const [key, weight] of entries) {
      roll -= weight;
      if (roll < 0) return key;
    }
    return entries[0]![0];
  }
}

const { Meter } = ledger;

/** One to three meters, large enough that balances run out often. */
export function randomMeters(rng: Rng): { meter: ledger.Meter; quantity: bigint }[] {
  const pool: [ledger.Meter, number][] = [
    [Meter.PAGE_LOAD, 40],
    [Meter.CONTEXT_SECONDS, 1_500],
    [Meter.SEARCH_RESULT, 80],
    [Meter.AGENT_SECONDS, 900],
    [Meter.MONITOR_CHANGE, 10],
    [Meter.PROXY_BYTES, 20_000_000],
    [Meter.BYTES_EGRESS, 1_000_000],
    [Meter.TOKENS, 50_000],
  ];
  const chosen = new Map<ledger.Meter, bigint>();
  for (let i = 0, n = rng.int(1, 3); i < n; i++) {
    const [meter, max] = rng.pick(pool)!;
    chosen.set(meter, rng.big(0, max));
  }
  return [...chosen].map(([meter, quantity]) => ({ meter, quantity }));
}
