import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ledger } from '@wap/proto';
import { blockSettle, blockSettles, crawlBlocks, PAGES_PER_BLOCK } from './blocks.js';

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

test('a batch appended to bills each block against the holds that cover its pages, every page once', () => {
  // 30 pages held first, 40 appended: block 1 (pages 25-49) is shared, block 2 is the second hold's.
  const holds = [
    { holdId: 'h0', from: 0, pages: 30 },
    { holdId: 'h1', from: 30, pages: 40 },
  ];
  const shares = (block: number, pages: number) =>
    blockSettles('c1', holds, block, pages).map((s) => [s.holdId, s.idempotencyKey, s.meters?.[0]?.quantity]);
  assert.deepEqual(shares(0, 25), [['h0', 'crawl:c1:pages:0', 25n]]);
  assert.deepEqual(shares(1, 25), [
    ['h0', 'crawl:c1:pages:1', 5n],
    ['h1', 'crawl:c1:pages:1:hold:1', 20n],
  ]);
  assert.deepEqual(shares(2, 20), [['h1', 'crawl:c1:pages:2:hold:1', 20n]]);
  // With one hold, the settles are the plain blocks' (a crawl never appended to bills as before).
  assert.deepEqual(blockSettles('c1', [{ holdId: 'h0', from: 0, pages: 100 }], 3, 7), [blockSettle('c1', 'h0', 3, 7)]);
  const total = crawlBlocks(70)
    .flatMap(({ block, pages }) => blockSettles('c1', holds, block, pages))
    .reduce((sum, s) => sum + Number(s.meters?.[0]?.quantity), 0);
  assert.equal(total, 70);
});
