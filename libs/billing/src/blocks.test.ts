import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ledger } from '@wap/proto';
import { blockSettle, crawlBlocks, PAGES_PER_BLOCK } from './blocks.js';

test('a crawl bills its delivered pages in blocks of 25 by seq, the last block with the remainder', () => {
  assert.deepEqual(crawlBlocks(0), []);
  assert.deepEqual(crawlBlocks(1), [{ block: 0, pages: 1 }]);
  assert.deepEqual(crawlBlocks(PAGES_PER_BLOCK), [{ block: 0, pages: 25 }]);
  assert.deepEqual(crawlBlocks(26), [
    { block: 0, pages: 25 },
    { block: 1, pages: 1 },
  ]);
  const blocks = crawlBlocks(1005);
  assert.equal(blocks.length, 41);
  assert.equal(
    blocks.reduce((sum, b) => sum + b.pages, 0),
    1005,
    'every page once',
  );
  assert.deepEqual(blocks.at(-1), { block: 40, pages: 5 });
});

test("a block's settle is the same request whoever makes it: its key names the crawl and the block", () => {
  const a = blockSettle('c1', 'h1', 3, 25);
  assert.deepEqual(a, blockSettle('c1', 'h1', 3, 25));
  assert.equal(a.idempotencyKey, 'crawl:c1:pages:3');
  assert.deepEqual(
    a.meters?.map((m) => [m.meter, m.quantity]),
    [[ledger.Meter.PAGE_LOAD, 25n]],
  );
  assert.notEqual(blockSettle('c2', 'h1', 3, 25).idempotencyKey, a.idempotencyKey);
});
