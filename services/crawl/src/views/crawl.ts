// How a crawl reads back: GetCrawl, CancelCrawl, ListCrawls and StartCrawl answer the same view.
import { create, fromJson, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { priceMeter } from '@wap/billing';
import { crawl, ledger } from '@wap/proto';
import type { CrawlRow } from '../store/crawls.js';
import type { PageStore } from '../store/pages.js';

const MAX_FAILURES_SHOWN = 1_000;

export async function toCrawl(
  { pages, retentionMs }: { pages: PageStore; retentionMs: number },
  row: CrawlRow,
  withFailures: boolean,
): Promise<crawl.Crawl> {
  const failures = withFailures && row.failed > 0 ? await pages.failures(row.id, MAX_FAILURES_SHOWN) : [];
  // Each delivered page is one page load (billed in blocks), and a document's further pages more (billed
  // with it): the spend is read from the row, without a ledger call.
  const loads = BigInt(row.completed + row.documentPages);
  const spent = priceMeter('page_load', loads);
  return create(crawl.CrawlSchema, {
    id: row.id,
    status: row.status,
    // A crawl is closed with its outcome a moment before it settles: the outcome shows with the settlement.
    outcome: row.status === 'settled' ? (row.outcome ?? '') : '',
    url: row.url,
    limit: row.limit,
    discovered: row.discovered,
    completed: row.completed,
    failed: row.failed,
    skipped: row.skipped,
    usage: {
      meters: loads > 0n ? [{ meter: ledger.Meter.PAGE_LOAD, quantity: loads, millicredits: spent }] : [],
      millicredits: spent,
    },
    failures: failures.map((f) => ({
      url: f.url,
      code: f.code,
      details: (f.details ?? undefined) as JsonObject | undefined,
    })),
    createdAt: timestampFromDate(row.createdAt),
    finishedAt: row.finishedAt ? timestampFromDate(row.finishedAt) : undefined,
    options: fromJson(crawl.CrawlOptionsSchema, row.options as JsonValue),
    // The sweeper deletes a crawl `retentionMs` after it ended; one still running ends now at the earliest.
    expiresAt: timestampFromDate(new Date((row.finishedAt?.getTime() ?? Date.now()) + retentionMs)),
  });
}
