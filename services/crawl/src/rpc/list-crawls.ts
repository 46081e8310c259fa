import { create } from '@bufbuild/protobuf';
import { crawl } from '@wap/proto';
import { toCrawl } from '../views/crawl.js';
import type { CrawlDeps } from './deps.js';
import { invalid } from './parse.js';

const MAX_LISTED = 100;

/** crawl.ListCrawls: the workspace's crawls that have not settled yet, newest first; reading is free. */
export const listCrawls =
  (deps: CrawlDeps) =>
  async (req: crawl.ListCrawlsRequest): Promise<crawl.ListCrawlsResponse> => {
    if (!req.workspaceId) invalid('workspaceId', 'required');
    const rows = await deps.crawls.running(req.workspaceId, MAX_LISTED);
    return create(crawl.ListCrawlsResponseSchema, {
      crawls: await Promise.all(rows.map((row) => toCrawl(deps, row, false))),
    });
  };
