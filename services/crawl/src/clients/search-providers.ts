// Search providers behind one interface, chosen by configuration: the built-in
// index over the workspace's own pages, SearXNG's JSON API, or Brave Search.
// Provider endpoints are the operator's, not the user's: they are called
// directly, not through the page guard.
import { ApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import type { CrawlConfig } from '../config.js';
import type { SearchIndex } from '../store/search-index.js';

export interface SearchQuery {
  workspaceId: string;
  query: string;
  limit: number;
  lang: string;
  country: string;
}

export interface SearchResult {
  url: string;
  title: string;
  description: string;
}

export interface SearchProvider {
  readonly name: 'builtin' | 'searxng' | 'brave';
  search(q: SearchQuery, signal: AbortSignal): Promise<SearchResult[]>;
}

const PROVIDER_TIMEOUT_MS = 15_000;

/** A provider answer that is not results: its refusal, or it being down. */
async function refusal(provider: string, res: Response): Promise<ApiError> {
  const body = (await res.text().catch(() => '')).slice(0, 200).trim();
  if (res.status >= 500 || res.status === 429) {
    const retry = Number(res.headers.get('retry-after'));
    return new ApiError('capability_unavailable', {
      capability: 'search',
      ...(Number.isInteger(retry) && retry > 0 ? { retryAfterSeconds: retry } : {}),
    });
  }
  return new ApiError('search_refused', { reason: `${provider} answered ${res.status}${body ? `: ${body}` : ''}` });
}

async function getJson<T>(provider: string, url: URL, headers: Record<string, string>, signal: AbortSignal) {
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { accept: 'application/json', ...headers },
      signal: AbortSignal.any([signal, AbortSignal.timeout(PROVIDER_TIMEOUT_MS)]),
    });
  } catch {
    throw new ApiError('capability_unavailable', { capability: 'search' });
  }
  if (!res.ok) throw await refusal(provider, res);
  try {
    return (await res.json()) as T;
  } catch {
    throw new ApiError('capability_unavailable', { capability: 'search' });
  }
}

const dedupe = (results: SearchResult[], limit: number) => {
  const seen = new Set<string>();
  return results.filter((r) => r.url && !seen.has(r.url) && seen.add(r.url)).slice(0, limit);
};

/** SearXNG `GET /search?format=json`: about 10 results a page, so several pages are read for a large limit. */
export function searxng(baseUrl: string): SearchProvider {
  return {
    name: 'searxng',
    async search(q, signal) {
      const out: SearchResult[] = [];
      for (let pageno = 1; out.length < q.limit && pageno <= 5; pageno++) {
        const url = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
        url.searchParams.set('q', q.query);
        url.searchParams.set('format', 'json');
        url.searchParams.set('pageno', String(pageno));
        if (q.lang) url.searchParams.set('language', q.lang);
        const body = await getJson<{ results?: { url?: string; title?: string; content?: string }[] }>(
          'searxng',
          url,
          {},
          signal,
        );
        const results = body.results ?? [];
        if (results.length === 0) break;
        for (const r of results)
          if (typeof r.url === 'string') out.push({ url: r.url, title: r.title ?? '', description: r.content ?? '' });
      }
      return dedupe(out, q.limit);
    },
  };
}

/** Brave Search `GET /res/v1/web/search`: at most 20 results a call, `offset` counts pages. */
export function brave(endpoint: string, apiKey: string): SearchProvider {
  return {
    name: 'brave',
    async search(q, signal) {
      const out: SearchResult[] = [];
      const count = Math.min(q.limit, 20);
      for (let offset = 0; out.length < q.limit && offset <= 9; offset++) {
        const url = new URL(endpoint);
        url.searchParams.set('q', q.query);
        url.searchParams.set('count', String(count));
        url.searchParams.set('offset', String(offset));
        if (q.lang) url.searchParams.set('search_lang', q.lang);
        if (q.country) url.searchParams.set('country', q.country);
        const body = await getJson<{
          web?: { results?: { url?: string; title?: string; description?: string }[] };
          query?: { more_results_available?: boolean };
        }>('brave', url, { 'x-subscription-token': apiKey, 'accept-encoding': 'gzip' }, signal);
        const results = body.web?.results ?? [];
        for (const r of results)
          if (typeof r.url === 'string')
            out.push({ url: r.url, title: r.title ?? '', description: r.description ?? '' });
        if (results.length < count || body.query?.more_results_available === false) break;
      }
      return dedupe(out, q.limit);
    },
  };
}

/** The workspace's own pages, ranked by Postgres full-text search. */
export function builtin(index: SearchIndex): SearchProvider {
  return {
    name: 'builtin',
    async search(q) {
      const hits = await index.search(q.workspaceId, q.query, q.limit);
      return hits.map((h) => ({ url: h.url, title: h.title, description: h.snippet || h.description }));
    },
  };
}

export function searchProvider(config: CrawlConfig, index: SearchIndex, log: Logger): SearchProvider {
  switch (config.SEARCH_PROVIDER) {
    case 'searxng':
      if (!config.SEARXNG_URL) throw new Error('SEARCH_PROVIDER=searxng needs SEARXNG_URL');
      log.info({ url: config.SEARXNG_URL }, 'search through SearXNG');
      return searxng(config.SEARXNG_URL);
    case 'brave':
      if (!config.BRAVE_API_KEY) throw new Error('SEARCH_PROVIDER=brave needs BRAVE_API_KEY');
      return brave(config.BRAVE_URL, config.BRAVE_API_KEY);
    default:
      return builtin(index);
  }
}
