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

/** A hold of the work and the pages it covers: `pages` delivered pages from the `from`-th (0-based) on. */
export interface PageHold {
  holdId: string;
  from: number;
  pages: number;
}

/**
 * The settles of block `block` (holding `pages` pages) when the work has several holds one after
 * the other (a batch appended to): each hold is charged the block's pages it covers. The first
 * hold's share keeps the block's own key, so work with one hold settles exactly as blockSettle;
 * another hold's share is keyed by the hold's place. A share is the same request whoever makes it:
 * a hold is added only past the pages already delivered, so a block's split never changes once
 * its pages exist.
 */
export function blockSettles(workId: string, holds: readonly PageHold[], block: number, pages: number): BlockSettle[] {
  const start = block * PAGES_PER_BLOCK;
  const end = start + pages;
  return holds.flatMap((hold, i) => {
    const share = Math.min(end, hold.from + hold.pages) - Math.max(start, hold.from);
    if (share <= 0) return [];
    const settle = blockSettle(workId, hold.holdId, block, share);
    return [i === 0 ? settle : { ...settle, idempotencyKey: `${settle.idempotencyKey}:hold:${i}` }];
  });
}
