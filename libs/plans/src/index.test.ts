import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPlanName, lowestPlanForMonitorInterval, PLAN_NAMES, PLANS, type PlanLimits } from './index.js';

const spec = (plan: PlanLimits) => ({
  creditsPerMonth: plan.creditsPerMonth,
  concurrentBrowsers: plan.concurrentBrowsers,
  requestsPerMinute: plan.requestsPerMinute,
});

test('the four plans carry the figures of docs/billing.md', () => {
  assert.deepEqual(spec(PLANS.free), { creditsPerMonth: 1000, concurrentBrowsers: 2, requestsPerMinute: 120 });
  assert.deepEqual(spec(PLANS.builder), { creditsPerMonth: 10000, concurrentBrowsers: 5, requestsPerMinute: 300 });
  assert.deepEqual(spec(PLANS.pro), { creditsPerMonth: 50000, concurrentBrowsers: 25, requestsPerMinute: 1500 });
  assert.deepEqual(spec(PLANS.scale), { creditsPerMonth: 250000, concurrentBrowsers: 100, requestsPerMinute: 6000 });
  assert.ok(isPlanName('pro'));
  assert.ok(!isPlanName('enterprise'));
});

test('monitors: a higher plan keeps more and checks more often, never more than once a minute', () => {
  const caps = PLAN_NAMES.map((name) => [PLANS[name].monitors, PLANS[name].monitorIntervalMs]);
  assert.deepEqual(caps, [
    [5, 3_600_000],
    [50, 300_000],
    [500, 60_000],
    [5_000, 60_000],
  ]);
  assert.equal(lowestPlanForMonitorInterval(60_000), 'pro');
  assert.equal(lowestPlanForMonitorInterval(600_000), 'builder');
  assert.equal(lowestPlanForMonitorInterval(86_400_000), 'free');
  assert.equal(lowestPlanForMonitorInterval(30_000), undefined);
});
