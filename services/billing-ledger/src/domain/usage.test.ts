import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rollUpUsage } from './usage.js';

test('sums by meter, by capability and by day, in a stable order', () => {
  const report = rollUpUsage(
    [
      { capability: 'search', day: '2026-11-02', meter: 'search_result', quantity: 6n, millicredits: 3_000n },
      { capability: 'search', day: '2026-11-02', meter: 'page_load', quantity: 1n, millicredits: 1_000n },
      { capability: 'crawl', day: '2026-11-01', meter: 'page_load', quantity: 3n, millicredits: 3_000n },
    ],
    [
      { capability: 'search', day: '2026-11-02', millicredits: 4_000n },
      { capability: 'crawl', day: '2026-11-01', millicredits: 2_500n },
    ],
  );
  assert.deepEqual(report.total, {
    meters: [
      { meter: 'page_load', quantity: 4n, millicredits: 4_000n },
      { meter: 'search_result', quantity: 6n, millicredits: 3_000n },
    ],
    millicredits: 6_500n,
  });
  assert.deepEqual(
    report.byCapability.map((b) => [b.key, b.millicredits, b.meters.length]),
    [
      ['crawl', 2_500n, 1],
      ['search', 4_000n, 2],
    ],
  );
  assert.deepEqual(
    report.byDay.map((b) => b.key),
    ['2026-11-01', '2026-11-02'],
  );
});

test('no usage is an empty report', () => {
  assert.deepEqual(rollUpUsage([], []), { total: { meters: [], millicredits: 0n }, byCapability: [], byDay: [] });
});
