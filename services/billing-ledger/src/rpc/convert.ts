// Between the contract's messages (protobuf enums, int64 as bigint, Timestamps)
// and the domain's names and values.
import { type Timestamp, timestampDate, timestampFromMs } from '@bufbuild/protobuf/wkt';
import { ledger } from '@wap/proto';
import type { PlanName } from '../domain/plans.js';
import type { MeterName, PricedMeter } from '../domain/pricing.js';
import type { StoredUsage } from '../store/money.js';

const { Meter, Plan, GrantKind } = ledger;

export const METER_NAMES: Readonly<Record<number, MeterName>> = {
  [Meter.CONTEXT_SECONDS]: 'context_seconds',
  [Meter.PAGE_LOAD]: 'page_load',
  [Meter.SEARCH_RESULT]: 'search_result',
  [Meter.AGENT_SECONDS]: 'agent_seconds',
  [Meter.MONITOR_CHANGE]: 'monitor_change',
  [Meter.PROXY_BYTES]: 'proxy_bytes',
  [Meter.BYTES_EGRESS]: 'bytes_egress',
  [Meter.TOKENS]: 'tokens',
};
const METER_ENUMS = Object.fromEntries(Object.entries(METER_NAMES).map(([k, v]) => [v, Number(k)])) as Record<
  MeterName,
  ledger.Meter
>;

export const PLAN_NAMES: Readonly<Record<number, PlanName>> = {
  [Plan.FREE]: 'free',
  [Plan.BUILDER]: 'builder',
  [Plan.PRO]: 'pro',
  [Plan.SCALE]: 'scale',
};
const PLAN_ENUMS = Object.fromEntries(Object.entries(PLAN_NAMES).map(([k, v]) => [v, Number(k)])) as Record<
  string,
  ledger.Plan
>;

export const GRANT_KIND_NAMES: Readonly<Record<number, string>> = {
  [GrantKind.PROMOTIONAL]: 'promotional',
  [GrantKind.STUDENT]: 'student',
  [GrantKind.PURCHASED]: 'purchased',
};
const GRANT_KIND_ENUMS = Object.fromEntries(Object.entries(GRANT_KIND_NAMES).map(([k, v]) => [v, Number(k)])) as Record<
  string,
  ledger.GrantKind
>;

export const meterEnum = (name: MeterName): ledger.Meter => METER_ENUMS[name];
export const planEnum = (name: string): ledger.Plan => PLAN_ENUMS[name] ?? Plan.UNSPECIFIED;
export const grantKindEnum = (name: string): ledger.GrantKind => GRANT_KIND_ENUMS[name] ?? GrantKind.UNSPECIFIED;

export const timestamp = (date: Date): Timestamp => timestampFromMs(date.getTime());
export const timestampOfMs = (ms: number): Timestamp => timestampFromMs(ms);
export const dateOf = (ts: Timestamp | undefined): Date | undefined => (ts ? timestampDate(ts) : undefined);

export function pricedMeters(meters: readonly PricedMeter[]) {
  return meters.map((m) => ({ meter: meterEnum(m.meter), quantity: m.quantity, millicredits: m.millicredits }));
}

/** A stored summary as the contract's UsageSummary: the same figures on every retry. */
export function usageSummary(usage: StoredUsage) {
  return {
    meters: usage.meters.map((m) => ({
      meter: meterEnum(m.meter as MeterName),
      quantity: BigInt(m.quantity),
      millicredits: BigInt(m.mc),
    })),
    millicredits: BigInt(usage.millicredits),
  };
}
