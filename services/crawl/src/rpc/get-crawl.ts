import { create } from '@bufbuild/protobuf';
import { crawl } from '@wap/proto';
import { toCrawl } from '../views/crawl.js';
import type { CrawlDeps } from './deps.js';
import { foundCrawl, parseCrawlRef } from './parse.js';

/** crawl.GetCrawl: the crawl's progress, usage and failures; reading is free. */
export const getCrawl =
  (deps: CrawlDeps) =>
  async (req: crawl.GetCrawlRequest): Promise<crawl.GetCrawlResponse> => {
    const row = await foundCrawl(deps.crawls, parseCrawlRef(req));
    return create(crawl.GetCrawlResponseSchema, { crawl: await toCrawl(deps, row, true) });
  };
