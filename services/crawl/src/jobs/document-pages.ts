// A crawl's documents of several page loads (a PDF's pages: decision 0020). The crawl's hold
// and its blocks count one page a delivery, as `limit` counts documents; a document's further
// pages are billed as a scrape bills them (`billed`, libs/billing): held before the document is
// delivered, settled once it is, released when it is not.
import { randomUUID } from 'node:crypto';
import { billed, type LedgerClient } from '@wap/billing';
import type { Logger } from '@wap/log';
import type { CrawlRow, CrawlStore } from '../store/crawls.js';

/**
 * Delivers a document whose `further` page loads are billed with it, and counts them on the
 * crawl once settled. A hold refused (`quota_exceeded`: the balance cannot pay them; or the
 * ledger away) is answered, and the document is not delivered. A delivery whose settle the
 * ledger did not take stands: its further pages go unbilled, never billed twice.
 */
export async function deliverDocument<T>(
  deps: { ledger: LedgerClient; crawls: CrawlStore; log: Logger },
  row: Pick<CrawlRow, 'id' | 'workspaceId'>,
  further: bigint,
  deliver: () => Promise<T>,
): Promise<{ delivered: T } | { refused: unknown }> {
  const pages = [{ meter: 'page_load' as const, quantity: further }];
  // The keys are this try's: a hold released when a try fails is never answered again to the next.
  const charge = {
    workspaceId: row.workspaceId,
    operationId: `${row.id}:document:${randomUUID()}`,
    capability: 'crawl',
    reference: row.id,
  };
  let held = false;
  let outcome: { value: T } | undefined;
  try {
    const { result } = await billed(deps.ledger, charge, pages, async () => {
      held = true;
      const value = await deliver();
      outcome = { value };
      return { result: value, used: isDelivery(value) ? pages : [] };
    });
    if (isDelivery(result))
      await deps.crawls
        .addDocumentPages(row.id, Number(further))
        .catch((err: unknown) =>
          deps.log.warn({ err, crawlId: row.id }, "a document's further pages were not counted"),
        );
    return { delivered: result };
  } catch (err) {
    if (!held) return { refused: err };
    // The delivery's own failure (its URL already given back) is the caller's.
    if (!outcome) throw err;
    deps.log.warn({ err, crawlId: row.id }, "a document's further pages could not be billed");
    return { delivered: outcome.value };
  }
}

/** A page this worker delivered: not one another worker delivered first, nor a try given back. */
const isDelivery = (value: unknown): boolean => typeof value === 'object' && value !== null;
