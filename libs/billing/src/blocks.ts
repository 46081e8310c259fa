import type { MessageInitShape } from '@bufbuild/protobuf';
import { ledger } from '@wap/proto';

type SettleInit = MessageInitShape<typeof ledger.SettleRequestSchema>;
export type BlockSettle = SettleInit & { idempotencyKey: string };

/**
 * Per-block work: a crawl's delivered pages are billed in blocks of this many,
 * by their sequence number (docs/decisions/0006, point 14): block k holds the
 * pages numbered k·25 + 1 to k·25 + 25. Whoever delivers a block's last page
 * settles it; the end of the work settles every block again, the last one with
 * what it holds. A block's settle is the same request whoever makes it, however
 * often, so the ledger charges it once.
 */
export const PAGES_PER_BLOCK = 25;

/** The settle of block `block` of the work `workId` (a crawl id), holding `pages` pages. */
export function blockSettle(workId: string, holdId: string, block: number, pages: number): BlockSettle {
  return {
    holdId,
    idempotencyKey: `crawl:${workId}:pages:${block}`,
    meters: [{ meter: ledger.Meter.PAGE_LOAD, quantity: BigInt(pages) }],
  };
}

/** The blocks of work that delivered `completed` pages in all: full ones, then the remainder. */
export function crawlBlocks(completed: number): { block: number; pages: number }[] {
  const blocks: { block: number; pages: number }[] = [];
  for (let block = 0; block * PAGES_PER_BLOCK < completed; block++)
    blocks.push({ block, pages: Math.min(PAGES_PER_BLOCK, completed - block * PAGES_PER_BLOCK) });
  return blocks;
}
