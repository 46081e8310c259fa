// Rolls the stored usage (already grouped by capability, UTC day and meter)
// up into what Usage answers: a total by meter, and buckets by capability and
// by day. Sums only: the figures are those each call answered with.
import { METERS, type MeterName, type PricedMeter } from '@wap/billing';

export interface MeterRow {
  capability: string;
  day: string;
  meter: MeterName;
  quantity: bigint;
  millicredits: bigint;
}

export interface ChargedRow {
  capability: string;
  day: string;
  /** What the calls were charged (their summaries' millicredits). */
  millicredits: bigint;
}

export interface UsageBucket {
  key: string;
  meters: PricedMeter[];
  millicredits: bigint;
}

export interface UsageReport {
  total: { meters: PricedMeter[]; millicredits: bigint };
  byCapability: UsageBucket[];
  byDay: UsageBucket[];
}

class Buckets {
  private readonly buckets = new Map<string, { meters: Map<MeterName, PricedMeter>; millicredits: bigint }>();

  private bucket(key: string) {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { meters: new Map(), millicredits: 0n };
      this.buckets.set(key, bucket);
    }
    return bucket;
  }

  addMeter(key: string, row: MeterRow): void {
    const meters = this.bucket(key).meters;
    const sum = meters.get(row.meter) ?? { meter: row.meter, quantity: 0n, millicredits: 0n };
    sum.quantity += row.quantity;
    sum.millicredits += row.millicredits;
    meters.set(row.meter, sum);
  }

  addCharged(key: string, millicredits: bigint): void {
    this.bucket(key).millicredits += millicredits;
  }

  list(): UsageBucket[] {
    return [...this.buckets.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, bucket]) => ({
        key,
        meters: [...bucket.meters.values()].sort((a, b) => METERS.indexOf(a.meter) - METERS.indexOf(b.meter)),
        millicredits: bucket.millicredits,
      }));
  }
}

export function rollUpUsage(meterRows: readonly MeterRow[], chargedRows: readonly ChargedRow[]): UsageReport {
  const total = new Buckets();
  const byCapability = new Buckets();
  const byDay = new Buckets();
  for (const row of meterRows) {
    total.addMeter('', row);
    byCapability.addMeter(row.capability, row);
    byDay.addMeter(row.day, row);
  }
  for (const row of chargedRows) {
    total.addCharged('', row.millicredits);
    byCapability.addCharged(row.capability, row.millicredits);
    byDay.addCharged(row.day, row.millicredits);
  }
  const [sum] = total.list();
  return {
    total: { meters: sum?.meters ?? [], millicredits: sum?.millicredits ?? 0n },
    byCapability: byCapability.list(),
    byDay: byDay.list(),
  };
}
