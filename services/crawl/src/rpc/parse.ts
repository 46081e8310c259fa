// Input checks the handlers share: bad_request with the field named, or not_found for a crawl the caller cannot see.
import { ApiError } from '@wap/errors';
import type { CrawlRow, CrawlStore } from '../store/crawls.js';

/** A crawl a request names: the caller's workspace and an id that can exist. */
export interface CrawlRef {
  workspaceId: string;
  crawlId: string;
}

export function invalid(path: string, message: string): never {
  throw new ApiError('bad_request', { issues: [{ path, message }] });
}

/** Billable calls carry the caller's workspace and the gateway's operation id, which keys the bill. */
export function requireOperation(req: { workspaceId: string; requestId: string }): void {
  if (!req.workspaceId || !req.requestId) invalid('requestId', 'required');
}

/** Crawl ids are UUIDs; anything else is a crawl that does not exist (not_found, as for another workspace's). */
export function parseCrawlRef(req: CrawlRef): CrawlRef {
  if (!/^[0-9a-f-]{36}$/i.test(req.crawlId)) throw new ApiError('not_found');
  return { workspaceId: req.workspaceId, crawlId: req.crawlId };
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
