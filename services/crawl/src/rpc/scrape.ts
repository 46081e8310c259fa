import { create } from '@bufbuild/protobuf';
import { crawl } from '@wap/proto';
import type { CallContext } from '@wap/rpc';
import { checkModelFormats, isModelFormat } from '../clients/model-formats.js';
import { addModelFormats } from '../pipeline/model-formats.js';
import { formatsOf, type LoadedPage, loadPage, type PipelineDeps, pageLoads, toDocument } from '../pipeline/scrape.js';
import { loadUpload } from '../pipeline/upload.js';
import { cacheKey } from '../store/page-cache.js';
import type { CrawlDeps } from './deps.js';
import { requireOperation } from './parse.js';

export type ScrapeDeps = Pick<CrawlDeps, keyof PipelineDeps | 'holds' | 'cache' | 'log' | 'modelFormats'>;

/**
 * crawl.Scrape: one URL (or a file the caller uploaded, read in its place), held as one page load and settled as what it read (a
 * PDF's pages): drawn from a hold taken ahead while the workspace is busy, else held alone (decision 0031). A page
 * that could not be fetched or turned into the asked formats is not billed.
 */
export function scrape(deps: ScrapeDeps) {
  return async (req: crawl.ScrapeRequest, ctx: CallContext): Promise<crawl.ScrapeResponse> => {
    const { options } = parseScrape(req);
    // A model or schema the agent service cannot use is refused before any page is loaded.
    await checkModelFormats(deps.modelFormats, req.workspaceId, formatsOf(options), options, ctx.signal);
    const key = cacheKey(req.url, options);
    // The page's meters: its page loads, and the tokens its model formats spent (recorded at zero price).
    const metered = async (document: crawl.Document, loaded: LoadedPage) => {
      const tokens = await addModelFormats(deps, req.workspaceId, document, loaded, options, ctx.signal);
      return {
        result: document,
        used: [
          { meter: 'page_load' as const, quantity: pageLoads(document) },
          ...(tokens > 0n ? [{ meter: 'tokens' as const, quantity: tokens }] : []),
        ],
      };
    };
    // The page's copies are written while its charge settles, outside the held section.
    let written: Promise<void> = Promise.resolve();
    const onePage = [{ meter: 'page_load' as const, quantity: 1n }];
    const work = async () => {
      const { page, extracted, cached } = req.upload
        ? { ...(await loadUpload(deps, req.upload, options, ctx.signal)), cached: false }
        : await loadPage(deps, req.url, options, ctx.signal, {
            // The cache's copy when it is young enough for the request's maxAge.
            copy: { workspaceId: req.workspaceId, key, maxAgeMs: Number(options.maxAgeMs) },
            // Over the plan's browsers a scrape is refused (429 concurrency_limit, kind browsers), not queued.
            slot: { workspaceId: req.workspaceId, wait: false },
            request: { workspaceId: req.workspaceId, requestId: req.reference || req.requestId },
          });
      // A document is not kept as a page copy: the cache holds HTML; an upload is nobody's page. A copy
      // is not written again.
      if (!cached && !page.document && !req.upload)
        written = deps.cache
          .store({ workspaceId: req.workspaceId, cacheKey: key, url: req.url, page, extracted })
          .catch((err) => deps.log.warn({ err }, 'page cache and search index write failed'));
      const document = toDocument(page, options, cached === true, extracted);
      return metered(document, { page, extracted });
    };
    // A caller that bills the page itself (a monitor's check) gets the page unbilled here.
    const { result, usage } = req.billedByCaller
      ? { result: (await work()).result, usage: undefined }
      : await deps.holds.billed(
          {
            workspaceId: req.workspaceId,
            operationId: req.requestId,
            // An upload is priced as a scrape and listed as what it was (docs/billing.md).
            capability: req.upload ? 'parse' : 'scrape',
            reference: req.reference || undefined,
          },
          onePage,
          work,
          // The model formats may take EXTRACT_TIMEOUT (10 minutes at most) on top of the page: the hold outlives both.
          formatsOf(options).some(isModelFormat) ? 15 * 60 : undefined,
        );
    // Answered once kept, so a scrape's page is searchable and cached when its answer arrives.
    await written;
    return create(crawl.ScrapeResponseSchema, { document: result, usage });
  };
}

/** An operation to bill, and the options (none: the defaults); the page pipeline's egress guard checks the URL. */
export function parseScrape(req: crawl.ScrapeRequest) {
  requireOperation(req);
  return { options: req.options ?? create(crawl.ScrapeOptionsSchema, {}) };
}
