import { create } from '@bufbuild/protobuf';
import { ApiError, isApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import { crawl, ledger } from '@wap/proto';
import type { CallContext } from '@wap/rpc';
import { type LedgerClient, PAGE_LOAD_MC } from '../billing.js';
import { mapLimited } from '../map-limited.js';
import { loadPage, type PipelineDeps, toDocument } from '../pipeline/scrape.js';
import type { SearchProvider, SearchResult } from '../search/providers.js';
import type { SearchIndex } from '../store/search-index.js';

export const MAX_SEARCH_RESULTS = 100;
/** 5 credits per 10 results (spec part 8): 0.5 credit, 500 mc, per result. */
const RESULT_MC = 500n;
const RENDER_CONCURRENCY = 4;

export interface SearchDeps extends PipelineDeps {
  ledger: LedgerClient;
  index: SearchIndex;
  provider: SearchProvider;
  log: Logger;
}

/**
 * crawl.Search: asks the configured provider, optionally renders every hit
 * through the scrape pipeline, and bills what was delivered: the results
 * returned and the pages rendered. A hit whose page fails carries its error
 * code and is not billed; a provider that refuses bills nothing.
 */
export function searchRpc(deps: SearchDeps) {
  return async (req: crawl.SearchRequest, ctx: CallContext): Promise<crawl.SearchResponse> => {
    if (!req.workspaceId || !req.requestId)
      throw new ApiError('bad_request', { issues: [{ path: 'requestId', message: 'required' }] });
    if (!req.query.trim()) throw new ApiError('bad_request', { issues: [{ path: 'query', message: 'required' }] });
    const limit = req.limit > 0 ? Math.min(req.limit, MAX_SEARCH_RESULTS) : 10;
    const render = req.scrapeOptions;
    const hold = await deps.ledger.authorize({
      workspaceId: req.workspaceId,
      idempotencyKey: `search:${req.requestId}:hold`,
      capability: 'search',
      millicredits: BigInt(limit) * (RESULT_MC + (render ? PAGE_LOAD_MC : 0n)),
      ttlSeconds: 3_600,
      reference: req.requestId,
    });
    let resolved = false;
    try {
      const results: SearchResult[] = await deps.provider.search(
        { workspaceId: req.workspaceId, query: req.query, limit, lang: req.lang, country: req.country },
        ctx.signal,
      );
      const hits = await mapLimited(results, RENDER_CONCURRENCY, async (r) => {
        const hit = create(crawl.SearchHitSchema, { url: r.url, title: r.title, description: r.description });
        if (!render) return hit;
        try {
          const { page, extracted } = await loadPage(deps, r.url, render, ctx.signal, {
            // Results rendered at once share the plan's browsers: each waits for a slot.
            slot: { workspaceId: req.workspaceId, wait: true },
          });
          hit.document = toDocument(page, render, false, extracted);
          await deps.index
            .add(req.workspaceId, page.finalUrl, extracted)
            .catch((err) => deps.log.warn({ err }, 'search index write failed'));
        } catch (err) {
          if (!isApiError(err) || ctx.signal.aborted) throw err;
          hit.error = err.code;
        }
        return hit;
      });
      const rendered = BigInt(hits.filter((h) => h.document).length);
      const meters = [
        ...(hits.length > 0 ? [{ meter: ledger.Meter.SEARCH_RESULT, quantity: BigInt(hits.length) }] : []),
        ...(rendered > 0n ? [{ meter: ledger.Meter.PAGE_LOAD, quantity: rendered }] : []),
      ];
      let usage: ledger.UsageSummary | undefined;
      if (meters.length > 0) {
        const settled = await deps.ledger.settle({
          holdId: hold.holdId,
          idempotencyKey: `search:${req.requestId}:settle`,
          meters,
        });
        usage = settled.usage;
        resolved = settled.holdRemainingMillicredits === 0n;
      }
      return create(crawl.SearchResponseSchema, { hits, provider: deps.provider.name, usage });
    } finally {
      // A settle that used the whole hold resolved it; otherwise the rest is released.
      if (!resolved) await deps.ledger.void({ holdId: hold.holdId }).catch(() => undefined);
    }
  };
}
