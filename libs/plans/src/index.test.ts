import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPlanName, PLANS } from './index.js';

test('the four plans carry the spec figures', () => {
  assert.deepEqual(PLANS.free, { creditsPerMonth: 1000, concurrentBrowsers: 2, requestsPerMinute: 120 });
  assert.deepEqual(PLANS.builder, { creditsPerMonth: 10000, concurrentBrowsers: 5, requestsPerMinute: 300 });
  assert.deepEqual(PLANS.pro, { creditsPerMonth: 50000, concurrentBrowsers: 25, requestsPerMinute: 1500 });
  assert.deepEqual(PLANS.scale, { creditsPerMonth: 250000, concurrentBrowsers: 100, requestsPerMinute: 6000 });
  assert.ok(isPlanName('pro'));
  assert.ok(!isPlanName('enterprise'));
});
