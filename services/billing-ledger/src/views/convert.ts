// Between the contract's messages (protobuf enums, int64 as bigint, Timestamps)
// and the domain's names and values.
import { type Timestamp, timestampDate, timestampFromMs } from '@bufbuild/protobuf/wkt';
import type { PricedMeter } from '@wap/billing';
import { grantKinds, meters, plans } from '@wap/plans';
import type { StoredUsage } from '../store/money.js';

// The enum mappings live in libs/plans, read from the contract's descriptors.
export const meterName = meters.toName;
export const meterEnum = meters.toEnum;
export const planName = plans.toName;
export const planEnum = plans.toEnum;
export const grantKindName = grantKinds.toName;
export const grantKindEnum = grantKinds.toEnum;

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
      meter: meterEnum(m.meter),
      quantity: BigInt(m.quantity),
      millicredits: BigInt(m.mc),
    })),
    millicredits: BigInt(usage.millicredits),
  };
}
