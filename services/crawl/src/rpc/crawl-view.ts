// How a crawl reads back (GetCrawl, CancelCrawl, StartCrawl answer the same view), its limits and its cursors.
import { create, fromJson, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { priceMeter } from '@wap/billing';
import { ApiError } from '@wap/errors';
import { crawl, ledger } from '@wap/proto';
import type { CrawlRow, CrawlStore } from '../store/crawls.js';
import type { CrawlDeps } from './deps.js';
import { type CrawlRef, invalid } from './parse.js';

export const MAX_CRAWL_LIMIT = 10_000;
/** A crawl that runs longer is settled by the sweeper with what it has. */
export const MAX_CRAWL_MS = 12 * 3_600_000;
const MAX_FAILURES_SHOWN = 1_000;

export async function toCrawl(
  { pages, retentionMs }: Pick<CrawlDeps, 'pages' | 'retentionMs'>,
  row: CrawlRow,
  withFailures: boolean,
): Promise<crawl.Crawl> {
  const failures = withFailures && row.failed > 0 ? await pages.failures(row.id, MAX_FAILURES_SHOWN) : [];
  const spent = priceMeter('page_load', BigInt(row.completed));
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
    // Each delivered page is one page load (billed in blocks): the spend is the count, read without a ledger call.
    usage: {
      meters:
        row.completed > 0
          ? [{ meter: ledger.Meter.PAGE_LOAD, quantity: BigInt(row.completed), millicredits: spent }]
          : [],
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

/** The cursor names the crawl and the last page read: opaque to clients, useless on another crawl. */
export const encodeCursor = (crawlId: string, seq: number) => Buffer.from(`${crawlId}:${seq}`).toString('base64url');

export function decodeCursor(cursor: string, crawlId: string): number {
  if (!cursor) return 0;
  const [id, seq] = Buffer.from(cursor, 'base64url').toString().split(':');
  const n = Number(seq);
  if (id !== crawlId || !Number.isInteger(n) || n < 0) invalid('cursor', 'not a cursor of this crawl');
  return n;
}

/** The workspace's crawl, or not_found: another workspace's crawl does not exist for this one. */
export async function foundCrawl(crawls: CrawlStore, ref: CrawlRef): Promise<CrawlRow> {
  const row = await crawls.get(ref.workspaceId, ref.crawlId);
  if (!row) throw new ApiError('not_found');
  return row;
}
