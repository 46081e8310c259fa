import { create } from '@bufbuild/protobuf';
import { billed } from '@wap/billing';
import { isApiError } from '@wap/errors';
import { crawl } from '@wap/proto';
import type { CallContext } from '@wap/rpc';
import pMap from 'p-map';
import { checkModelFormats } from '../clients/model-formats.js';
import type { SearchResult } from '../clients/search-providers.js';
import { addModelFormats } from '../pipeline/model-formats.js';
import { formatsOf, loadPage, type PipelineDeps, toDocument } from '../pipeline/scrape.js';
import type { CrawlDeps } from './deps.js';
import { invalid, requireOperation } from './parse.js';

export const MAX_SEARCH_RESULTS = 100;
const DEFAULT_SEARCH_RESULTS = 10;
const RENDER_CONCURRENCY = 4;

export type SearchDeps = Pick<CrawlDeps, keyof PipelineDeps | 'ledger' | 'index' | 'provider' | 'log' | 'modelFormats'>;

/**
 * crawl.Search: asks the configured provider, optionally renders every hit
 * through the scrape pipeline (its model formats too), and bills what was
 * delivered: the results returned, the pages rendered and the model's tokens. A hit whose page fails carries its error
 * code and is not billed; a provider that refuses bills nothing.
 */
export function search(deps: SearchDeps) {
  return async (req: crawl.SearchRequest, ctx: CallContext): Promise<crawl.SearchResponse> => {
    const { limit, render } = parseSearch(req);
    // Each rendered hit's model formats are asked of the agent: a model or schema it cannot use is refused now.
    if (render) await checkModelFormats(deps.modelFormats, req.workspaceId, formatsOf(render), render, ctx.signal);
    let tokens = 0n;
    const { result, usage } = await billed(
      deps.ledger,
      {
        workspaceId: req.workspaceId,
        operationId: req.requestId,
        capability: 'search',
        reference: req.reference || undefined,
      },
      [
        { meter: 'search_result', quantity: BigInt(limit) },
        { meter: 'page_load', quantity: render ? BigInt(limit) : 0n },
      ],
      async () => {
        const results: SearchResult[] = await deps.provider.search(
          { workspaceId: req.workspaceId, query: req.query, limit, lang: req.lang, country: req.country },
          ctx.signal,
        );
        const hits = await pMap(
          results,
          async (r) => {
            const hit = create(crawl.SearchHitSchema, { url: r.url, title: r.title, description: r.description });
            if (!render) return hit;
            try {
              const { page, extracted } = await loadPage(deps, r.url, render, ctx.signal, {
                // Results rendered at once share the plan's browsers: each waits for a slot.
                slot: { workspaceId: req.workspaceId, wait: true },
                request: { workspaceId: req.workspaceId, requestId: req.reference || req.requestId },
              });
              const document = toDocument(page, render, false, extracted);
              tokens += await addModelFormats(deps, req.workspaceId, document, { page, extracted }, render, ctx.signal);
              hit.document = document;
              await deps.index
                .add(req.workspaceId, page.finalUrl, extracted)
                .catch((err) => deps.log.warn({ err }, 'search index write failed'));
            } catch (err) {
              if (!isApiError(err) || ctx.signal.aborted) throw err;
              hit.error = err.code;
            }
            return hit;
          },
          // The first error stops new renders and fails the call; results keep the provider's order.
          { concurrency: RENDER_CONCURRENCY },
        );
        const used = [
          { meter: 'search_result' as const, quantity: BigInt(hits.length) },
          { meter: 'page_load' as const, quantity: BigInt(hits.filter((h) => h.document).length) },
          ...(tokens > 0n ? [{ meter: 'tokens' as const, quantity: tokens }] : []),
        ];
        return { result: hits, used };
      },
      3_600,
    );
    return create(crawl.SearchResponseSchema, { hits: result, provider: deps.provider.name, usage });
  };
}

/** An operation to bill, a query, and a result limit within bounds (0: ten); `render` asks for each hit's page. */
export function parseSearch(req: crawl.SearchRequest) {
  requireOperation(req);
  if (!req.query.trim()) invalid('query', 'required');
  const limit = req.limit > 0 ? Math.min(req.limit, MAX_SEARCH_RESULTS) : DEFAULT_SEARCH_RESULTS;
  return { limit, render: req.scrapeOptions };
}
