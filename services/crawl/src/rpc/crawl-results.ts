import { create, fromBinary } from '@bufbuild/protobuf';
import { crawl } from '@wap/proto';
import { formatsOf } from '../pipeline/scrape.js';
import type { CrawlDeps } from './deps.js';
import { decodeCursor, encodeCursor, foundCrawl, parseCrawlRef } from './parse.js';

const DEFAULT_RESULTS_PAGE = 50;
const MAX_RESULTS_PAGE = 100;
const MAX_RESULTS_BYTES = 10 * 1024 * 1024;

/** crawl.CrawlResults: delivered pages in order, a page of them at a time, from an opaque cursor. */
export const crawlResults =
  (deps: CrawlDeps) =>
  async (req: crawl.CrawlResultsRequest): Promise<crawl.CrawlResultsResponse> => {
    const { ref, cursor, pageSize } = parseCrawlResults(req);
    const row = await foundCrawl(deps.crawls, ref);
    // Read after the crawl: a cursor is checked against the crawl it names.
    const after = decodeCursor(cursor, row.id);
    const pages = await deps.pages.delivered(row.id, after, pageSize, MAX_RESULTS_BYTES);
    const last = pages.at(-1)?.seq ?? after;
    // The row was read before the pages: a crawl already settled then has no page after `completed`.
    const ended = row.status === 'settled' && last >= row.completed;
    return create(crawl.CrawlResultsResponseSchema, {
      pages: pages.map((p) => ({
        seq: BigInt(p.seq),
        depth: p.depth,
        document: fromBinaryDocument(p.document),
      })),
      nextCursor: ended ? '' : encodeCursor(row.id, last),
      status: row.status,
      formats: formatsOf(deps.worker.scrapeOptionsOf(row)),
    });
  };

const fromBinaryDocument = (bytes: Uint8Array) => fromBinary(crawl.DocumentSchema, bytes);

/** The crawl, the cursor (decoded once the crawl is read) and a page size within bounds (0: the default). */
export function parseCrawlResults(req: crawl.CrawlResultsRequest) {
  const pageSize = req.pageSize > 0 ? Math.min(req.pageSize, MAX_RESULTS_PAGE) : DEFAULT_RESULTS_PAGE;
  return { ref: parseCrawlRef(req), cursor: req.cursor, pageSize };
}
