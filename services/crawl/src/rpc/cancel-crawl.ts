import { create } from '@bufbuild/protobuf';
import { ApiError } from '@wap/errors';
import { crawl } from '@wap/proto';
import { toCrawl } from '../views/crawl.js';
import type { CrawlDeps } from './deps.js';
import { foundCrawl, parseCrawlRef } from './parse.js';

/** crawl.CancelCrawl: no new page starts; pages done stay billed, the rest of the hold is voided. */
export const cancelCrawl =
  (deps: CrawlDeps) =>
  async (req: crawl.CancelCrawlRequest): Promise<crawl.CancelCrawlResponse> => {
    const ref = parseCrawlRef(req);
    if (!(await deps.crawls.cancel(ref.workspaceId, ref.crawlId))) throw new ApiError('not_found');
    await deps.worker.finishIfDone(ref.crawlId);
    const row = await foundCrawl(deps.crawls, ref);
    return create(crawl.CancelCrawlResponseSchema, { crawl: await toCrawl(deps, row, true) });
  };
