import assert from 'node:assert/strict';
import { test } from 'node:test';
import { creditsDown, creditsUp, exactUnit, METERS, priceMeter, priceUsage, RATES } from './prices.js';

test('the worked examples of docs/billing.md', () => {
  assert.equal(priceMeter('search_result', 6n), 3_000n, '6 search results = 3 credits');
  assert.equal(priceMeter('context_seconds', 90n), 1_500n, '90 s of browser time = 1.5 credits');
  assert.equal(priceMeter('proxy_bytes', 1_500_000n), 3_000n, '1.5 MB through a residential exit = 3 credits');
});

test('each rate of the price list, at a quantity where it is exact', () => {
  assert.equal(priceMeter('context_seconds', 60n), 1_000n); // 1 credit per minute
  assert.equal(priceMeter('page_load', 1n), 1_000n); // 1 credit per page
  assert.equal(priceMeter('search_result', 10n), 5_000n); // 5 credits per 10 results
  assert.equal(priceMeter('agent_seconds', 60n), 5_000n); // 5 credits per minute
  assert.equal(priceMeter('monitor_change', 1n), 1_000n); // 1 credit per changed page
  assert.equal(priceMeter('proxy_bytes', 1_000_000_000n), 2_000_000n); // 2000 credits per GB
  assert.equal(priceMeter('bytes_egress', 10n ** 12n), 0n);
  assert.equal(priceMeter('tokens', 10n ** 9n), 0n);
});

test('a fraction of a millicredit rounds up, once per meter per call', () => {
  assert.equal(priceMeter('context_seconds', 1n), 17n); // 16.67 mc
  assert.equal(priceMeter('agent_seconds', 1n), 84n); // 83.33 mc
  assert.equal(priceMeter('proxy_bytes', 1n), 1n); // 0.002 mc
  assert.equal(priceMeter('proxy_bytes', 500n), 1n);
  assert.equal(priceMeter('proxy_bytes', 501n), 2n);
  assert.equal(priceMeter('search_result', 1n), 500n);
  for (const meter of METERS) assert.equal(priceMeter(meter, 0n), 0n, `${meter} at zero`);
});

test('rounding never undercharges and overcharges by less than 1 mc', () => {
  for (const meter of METERS) {
    const { mc, per } = RATES[meter];
    for (let q = 0n; q < 2_000n; q += 7n) {
      const price = priceMeter(meter, q);
      assert.ok(price * per >= q * mc, `${meter} ${q}: not below the exact price`);
      assert.ok((price - 1n) * per < q * mc || price === 0n, `${meter} ${q}: less than 1 mc above it`);
    }
  }
});

test('exact at the largest accepted quantity (no floating point anywhere)', () => {
  assert.equal(priceMeter('agent_seconds', 1_000_000_000_000n), 83_333_333_333_334n);
  assert.equal(priceMeter('proxy_bytes', 999_999_999_999n), 2_000_000_000n);
});

test('a call is priced meter by meter, in the contract order', () => {
  const usage = priceUsage([
    { meter: 'context_seconds', quantity: 90n },
    { meter: 'page_load', quantity: 2n },
    { meter: 'tokens', quantity: 1234n },
  ]);
  assert.deepEqual(
    usage.meters.map((m) => [m.meter, m.millicredits]),
    [
      ['context_seconds', 1_500n],
      ['page_load', 2_000n],
      ['tokens', 0n],
    ],
  );
  assert.equal(usage.millicredits, 3_500n);
});

test('whole credits for error details round against a misreading', () => {
  assert.equal(creditsUp(1_001n), 2);
  assert.equal(creditsUp(1_000n), 1);
  assert.equal(creditsDown(1_999n), 1);
  assert.equal(creditsDown(0n), 0);
});

test('the exact unit of each meter: the least quantity priced in whole millicredits', () => {
  assert.equal(exactUnit('context_seconds'), 3n); // 3 s of browser time = 50 mc
  assert.equal(exactUnit('agent_seconds'), 3n); // 3 s of agent time = 250 mc
  assert.equal(exactUnit('proxy_bytes'), 500n); // 500 bytes = 1 mc
  assert.equal(exactUnit('page_load'), 1n);
  assert.equal(exactUnit('search_result'), 1n); // 500 mc a result
  assert.equal(exactUnit('tokens'), 1n); // priced at zero
  for (const meter of METERS) {
    const unit = exactUnit(meter);
    const { mc, per } = RATES[meter];
    assert.equal((unit * mc) % per, 0n, `${meter}: whole millicredits`);
  }
});
