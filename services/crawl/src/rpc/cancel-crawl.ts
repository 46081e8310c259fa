import { create } from '@bufbuild/protobuf';
import { ApiError } from '@wap/errors';
import { crawl } from '@wap/proto';
import { foundCrawl, isCrawlId, toCrawl } from './crawl-view.js';
import type { CrawlDeps } from './deps.js';

/** crawl.CancelCrawl: no new page starts; pages done stay billed, the rest of the hold is voided. */
export const cancelCrawl =
  (deps: CrawlDeps) =>
  async (req: crawl.CancelCrawlRequest): Promise<crawl.CancelCrawlResponse> => {
    if (!isCrawlId(req.crawlId) || !(await deps.store.cancel(req.workspaceId, req.crawlId)))
      throw new ApiError('not_found');
    await deps.worker.finishIfDone(req.crawlId);
    const row = await foundCrawl(deps.store, req.workspaceId, req.crawlId);
    return create(crawl.CancelCrawlResponseSchema, { crawl: await toCrawl(deps.store, row, true) });
  };
