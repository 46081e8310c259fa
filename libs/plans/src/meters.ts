import { ledger } from '@wap/proto';
import { protoNames } from './proto-names.js';

/** The priced meters (docs/billing.md), in the order usage is listed in. */
export const METER_NAMES = [
  'context_seconds',
  'page_load',
  'search_result',
  'agent_seconds',
  'monitor_change',
  'proxy_bytes',
  'bytes_egress',
  'tokens',
] as const;
export type MeterName = (typeof METER_NAMES)[number];

/** Meters and the ledger contract's `Meter` enum. */
export const meters = protoNames<MeterName, ledger.Meter>(ledger.MeterSchema, METER_NAMES);
