// Input checks the handlers share; each answers bad_request with the field named.
import { ApiError } from '@wap/errors';

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
