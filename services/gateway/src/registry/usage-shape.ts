import { timestampDate } from '@bufbuild/protobuf/wkt';
import { meters } from '@wap/plans';
import type { ledger } from '@wap/proto';
import { z } from 'zod';

/** Millicredits, the ledger's unit, as the credits users see (three decimals, exact). */
export const credits = (millicredits: bigint): number => Number(millicredits) / 1000;

export const meterQuantities = z
  .record(z.string(), z.number().int().nonnegative())
  .describe('Quantity per meter, in its own unit (seconds, pages, results, bytes, tokens).');

/** The `usage` object: what one call (or one aggregate) caused. */
export const usageObject = z
  .object({
    credits: z.number().nonnegative().describe('Credits charged, to three decimals.'),
    meters: meterQuantities,
  })
  .describe('The usage a call caused: metered quantities and the credits they cost.');

export function toUsageObject(summary: { meters: ledger.MeterQuantity[]; millicredits: bigint } | undefined) {
  const quantities: Record<string, number> = {};
  for (const m of summary?.meters ?? []) {
    const name = meters.toName(m.meter);
    if (name) quantities[name] = (quantities[name] ?? 0) + Number(m.quantity);
  }
  return { credits: credits(summary?.millicredits ?? 0n), meters: quantities };
}

/** What each meter of a summary cost, in credits (meters that cost nothing are left out). */
export function creditsByMeter(summary: { meters: ledger.MeterQuantity[] } | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of summary?.meters ?? []) {
    const name = meters.toName(m.meter);
    if (name && m.millicredits > 0n) out[name] = (out[name] ?? 0) + credits(m.millicredits);
  }
  return out;
}

export const isoTime = (ts: Parameters<typeof timestampDate>[0] | undefined): string | null =>
  ts ? timestampDate(ts).toISOString() : null;
