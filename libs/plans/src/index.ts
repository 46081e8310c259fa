import { ledger } from '@wap/proto';
import { protoNames } from './proto-names.js';

/** The plans (docs/billing.md): one table every service reads. */
export const PLAN_NAMES = ['free', 'builder', 'pro', 'scale'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface PlanLimits {
  creditsPerMonth: number;
  concurrentBrowsers: number;
  requestsPerMinute: number;
  /**
   * Monitors a workspace may keep (ours, not one of the plan figures in
   * docs/billing.md). Checks run whether anyone watches or not, so the count,
   * not the credits alone, bounds the load a workspace puts on the schedule
   * (docs/monitors.md).
   */
  monitors: number;
  /** The shortest time between two checks of one monitor, interval or cron (ours too: docs/monitors.md). */
  monitorIntervalMs: number;
}

const MINUTE = 60_000;

export const PLANS: Readonly<Record<PlanName, PlanLimits>> = {
  free: {
    creditsPerMonth: 1_000,
    concurrentBrowsers: 2,
    requestsPerMinute: 120,
    monitors: 5,
    monitorIntervalMs: 60 * MINUTE,
  },
  builder: {
    creditsPerMonth: 10_000,
    concurrentBrowsers: 5,
    requestsPerMinute: 300,
    monitors: 50,
    monitorIntervalMs: 5 * MINUTE,
  },
  pro: {
    creditsPerMonth: 50_000,
    concurrentBrowsers: 25,
    requestsPerMinute: 1_500,
    monitors: 500,
    monitorIntervalMs: MINUTE,
  },
  scale: {
    creditsPerMonth: 250_000,
    concurrentBrowsers: 100,
    requestsPerMinute: 6_000,
    monitors: 5_000,
    monitorIntervalMs: MINUTE,
  },
};

/** The first plan, in order, whose monitors may be checked every `intervalMs`; undefined when none may. */
export function lowestPlanForMonitorInterval(intervalMs: number): PlanName | undefined {
  return PLAN_NAMES.find((name) => PLANS[name].monitorIntervalMs <= intervalMs);
}

export function isPlanName(value: unknown): value is PlanName {
  return typeof value === 'string' && (PLAN_NAMES as readonly string[]).includes(value);
}

/** Plans and the ledger contract's `Plan` enum. */
export const plans = protoNames<PlanName, ledger.Plan>(ledger.PlanSchema, PLAN_NAMES);

export { GRANT_KIND_NAMES, type GrantKindName, grantKinds } from './grant-kinds.js';
export { METER_NAMES, type MeterName, meters } from './meters.js';
export type { ProtoNames } from './proto-names.js';
export {
  ENGINE_NAMES,
  type EngineName,
  engines,
  FORMAT_NAMES,
  FORMATS,
  type FormatName,
  formatName,
} from './scrape-words.js';
