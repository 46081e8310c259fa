// The price list (docs/billing.md) in millicredits (mc; 1 credit = 1000 mc), and
// the one rounding rule: per call and per meter, mc = ceil(quantity × rate),
// computed exactly with BigInt. docs/billing.md has the worked examples.

import { METER_NAMES, type MeterName } from '@wap/plans';

/** The meters in the contract's order (libs/plans): the order usage is listed in. */
export const METERS = METER_NAMES;
export type { MeterName };

export const MC_PER_CREDIT = 1000n;

/** A rate as an exact fraction: `mc` millicredits per `per` units of the meter. */
export interface Rate {
  mc: bigint;
  per: bigint;
}

// Written as the price list states them, so each line can be checked against docs/billing.md.
export const RATES: Readonly<Record<MeterName, Rate>> = {
  context_seconds: { mc: 1n * MC_PER_CREDIT, per: 60n }, // 1 credit per minute of browser time
  page_load: { mc: 1n * MC_PER_CREDIT, per: 1n }, // 1 credit per page
  search_result: { mc: 5n * MC_PER_CREDIT, per: 10n }, // 5 credits per 10 results
  agent_seconds: { mc: 5n * MC_PER_CREDIT, per: 60n }, // 5 credits per minute of agent time
  monitor_change: { mc: 1n * MC_PER_CREDIT, per: 1n }, // 1 credit per changed page
  proxy_bytes: { mc: 2000n * MC_PER_CREDIT, per: 1_000_000_000n }, // 2000 credits per GB (10^9 bytes)
  bytes_egress: { mc: 0n, per: 1n }, // recorded, priced at zero
  tokens: { mc: 0n, per: 1n }, // recorded, priced at zero
};

export interface MeterQuantity {
  meter: MeterName;
  quantity: bigint;
}

export interface PricedMeter extends MeterQuantity {
  millicredits: bigint;
}

export interface PricedUsage {
  meters: PricedMeter[];
  /** The sum of the meters' prices: what the call costs before any shortfall. */
  millicredits: bigint;
}

/** ceil(quantity × rate) in exact integer arithmetic. */
export function priceMeter(meter: MeterName, quantity: bigint): bigint {
  if (quantity < 0n) throw new RangeError('quantity must not be negative');
  const { mc, per } = RATES[meter];
  return (quantity * mc + per - 1n) / per;
}

/** Prices one call's meters, in the contract's meter order. */
export function priceUsage(quantities: readonly MeterQuantity[]): PricedUsage {
  const meters = [...quantities]
    .sort((a, b) => METERS.indexOf(a.meter) - METERS.indexOf(b.meter))
    .map((q) => ({ ...q, millicredits: priceMeter(q.meter, q.quantity) }));
  return { meters, millicredits: meters.reduce((sum, m) => sum + m.millicredits, 0n) };
}

/** Whole credits for error details, which the catalogue types as integers. */
export const creditsUp = (mc: bigint): number => Number((mc + MC_PER_CREDIT - 1n) / MC_PER_CREDIT);
export const creditsDown = (mc: bigint): number => Number(mc / MC_PER_CREDIT);

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

/**
 * The smallest quantity of a meter whose price is a whole number of
 * millicredits (3 s of browser time = 50 mc; 500 bytes through an exit =
 * 1 mc). Work metered as it accrues settles in multiples of it, so the
 * per-call rounding adds nothing until the last settle.
 */
export function exactUnit(meter: MeterName): bigint {
  const { mc, per } = RATES[meter];
  return mc === 0n ? 1n : per / gcd(mc, per);
}
