import { create } from '@bufbuild/protobuf';
import { ApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import { crawl } from '@wap/proto';
import type { CallContext } from '@wap/rpc';
import { billedPage, type LedgerClient } from '../billing.js';
import { formatsOf, loadPage, type PipelineDeps, toDocument } from '../pipeline/scrape.js';
import { cacheKey, type PageCache } from '../store/page-cache.js';
import type { SearchIndex } from '../store/search-index.js';

export interface ScrapeDeps extends PipelineDeps {
  ledger: LedgerClient;
  cache: PageCache;
  /** Every fetched page goes into the workspace's built-in search index. */
  index: SearchIndex;
  log: Logger;
}

const wantsScreenshot = (options: crawl.ScrapeOptions) =>
  formatsOf(options).some((f) => f === crawl.Format.SCREENSHOT || f === crawl.Format.SCREENSHOT_FULL_PAGE);

/**
 * crawl.Scrape: one URL, held and settled as one page load. A page that could
 * not be fetched or turned into the asked formats voids the hold: not billed.
 */
export function scrapeRpc(deps: ScrapeDeps) {
  return async (req: crawl.ScrapeRequest, ctx: CallContext): Promise<crawl.ScrapeResponse> => {
    if (!req.workspaceId || !req.requestId)
      throw new ApiError('bad_request', { issues: [{ path: 'requestId', message: 'required' }] });
    const options = req.options ?? create(crawl.ScrapeOptionsSchema, {});
    const key = cacheKey(req.url, options);
    const { result, usage } = await billedPage(
      deps.ledger,
      { workspaceId: req.workspaceId, requestId: req.requestId, capability: 'scrape' },
      async () => {
        // Screenshots are not kept, so a request for one always loads the page.
        const cached = wantsScreenshot(options)
          ? undefined
          : await deps.cache.fresh(req.workspaceId, key, Number(options.maxAgeMs));
        if (cached) return toDocument(cached, options, true);
        const { page, extracted } = await loadPage(deps, req.url, options, ctx.signal, {
          // Over the plan's browsers a scrape is refused (429 concurrency_limit, kind browsers), not queued.
          slot: { workspaceId: req.workspaceId, wait: false },
        });
        const document = toDocument(page, options, false, extracted);
        await Promise.all([
          deps.cache
            .store(req.workspaceId, key, req.url, page)
            .catch((err) => deps.log.warn({ err }, 'page cache write failed')),
          deps.index
            .add(req.workspaceId, page.finalUrl, extracted)
            .catch((err) => deps.log.warn({ err }, 'search index write failed')),
        ]);
        return document;
      },
    );
    return create(crawl.ScrapeResponseSchema, { document: result, usage });
  };
}
