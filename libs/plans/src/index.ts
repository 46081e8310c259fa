import { ledger } from '@wap/proto';
import { protoNames } from './proto-names.js';

/** The plans of the spec (part 8): one table every service reads. */
export const PLAN_NAMES = ['free', 'builder', 'pro', 'scale'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface PlanLimits {
  creditsPerMonth: number;
  concurrentBrowsers: number;
  requestsPerMinute: number;
}

export const PLANS: Readonly<Record<PlanName, PlanLimits>> = {
  free: { creditsPerMonth: 1_000, concurrentBrowsers: 2, requestsPerMinute: 120 },
  builder: { creditsPerMonth: 10_000, concurrentBrowsers: 5, requestsPerMinute: 300 },
  pro: { creditsPerMonth: 50_000, concurrentBrowsers: 25, requestsPerMinute: 1_500 },
  scale: { creditsPerMonth: 250_000, concurrentBrowsers: 100, requestsPerMinute: 6_000 },
};

export function isPlanName(value: unknown): value is PlanName {
  return typeof value === 'string' && (PLAN_NAMES as readonly string[]).includes(value);
}

/** Plans and the ledger contract's `Plan` enum. */
export const plans = protoNames<PlanName, ledger.Plan>(ledger.PlanSchema, PLAN_NAMES);

export { GRANT_KIND_NAMES, type GrantKindName, grantKinds } from './grant-kinds.js';
export { METER_NAMES, type MeterName, meters } from './meters.js';
export type { ProtoNames } from './proto-names.js';
