import { create } from '@bufbuild/protobuf';
import { ApiError, isApiError } from '@wap/errors';
import { crawl } from '@wap/proto';
import { z } from 'zod';
import { firecrawlBookkeeping } from '../bookkeeping.js';
import { capability } from '../types.js';
import { toUsageObject, usageObject } from '../usage-shape.js';
import {
  documentSchema,
  MODEL_FORMATS_MS,
  type ScrapeOptionsInput,
  scrapeOptions,
  toDocumentJson,
  toScrapeOptions,
  usesModel,
} from './scrape.js';

/** The longest a caller may give a search (a hundred rendered hits take minutes). */
const MAX_SEARCH_MS = 600_000;

const body = z.strictObject({
  query: z.string().trim().min(1).max(1_000).describe('What to search for (web-search syntax: quotes, `-word`, `or`).'),
  limit: z.number().int().min(1).max(100).default(10).describe('Results wanted.'),
  lang: z.string().max(20).optional().describe('Language of the results, e.g. `en`.'),
  country: z.string().max(10).optional().describe('Country code for the results, e.g. `us`.'),
  scrapeOptions: scrapeOptions
    .optional()
    .describe(
      'When given, every hit is rendered through the scrape pipeline with these options (1 credit per page); with `formats: []` (what Firecrawl’s JS client sends when none is asked) nothing is rendered.',
    ),
  timeout: z
    .number()
    .int()
    .min(1_000)
    .max(MAX_SEARCH_MS)
    .optional()
    .describe(
      "Milliseconds the whole search may take, rendering included; past it the call answers `deadline_exceeded` (408) and bills nothing. Default: 30 s, and when every hit is rendered, its `scrapeOptions.timeout` for every four hits on top, and 10 minutes more with a model format (`json`, `summary`), whose model calls are bounded by the deployment's EXTRACT_TIMEOUT each.",
    ),
  ...firecrawlBookkeeping,
});

/** The deadline of a search: the caller's `timeout`, or enough for the provider and the renders asked. */
const deadlineOf = (b: { limit: number; timeout?: number | undefined }, render: ScrapeOptionsInput | undefined) =>
  b.timeout ??
  (render ? render.timeout * Math.ceil(b.limit / 4) + 30_000 + (usesModel(render) ? MODEL_FORMATS_MS : 0) : 30_000);

const hit = documentSchema.extend({
  url: z.string(),
  title: z.string(),
  description: z.string(),
  error: z.string().optional().describe('Why a hit asked to be rendered has no content (an error code; not billed).'),
});

export const searchRow = capability({
  name: 'search',
  method: 'post',
  path: '/v1/search',
  tag: 'Search',
  summary: 'Search the web',
  description:
    "Searches with the deployment's provider (the built-in index over this workspace's scraped and crawled pages, SearXNG or Brave), optionally rendering every hit. 5 credits per 10 results, plus 1 credit per rendered page.",
  openWorld: true,
  backend: 'crawl',
  bills: ['search_result', 'page_load'],
  mcpTool: 'service_search_query',
  request: { body },
  example: { query: 'open source web crawler "robots.txt"', limit: 5, lang: 'en', country: 'us' },
  response: z.object({
    success: z.literal(true),
    data: z.array(hit),
    provider: z.enum(['builtin', 'searxng', 'brave']),
    usage: usageObject,
  }),
  errors: ['search_refused', 'quota_exceeded', 'no_capacity', 'capability_unavailable'],
  handler: async ({ principal, upstreams, operationId, requestId, signal }, { body: b }) => {
    const render = b.scrapeOptions?.formats.length ? b.scrapeOptions : undefined;
    const timeoutMs = deadlineOf(b, render);
    const out = await upstreams.crawl
      .search(
        create(crawl.SearchRequestSchema, {
          workspaceId: principal.workspaceId,
          requestId: operationId,
          reference: requestId,
          query: b.query,
          limit: b.limit,
          lang: b.lang ?? '',
          country: b.country ?? '',
          scrapeOptions: render ? toScrapeOptions(render) : undefined,
        }),
        { signal, timeoutMs },
      )
      .catch((err: unknown) => {
        throw isApiError(err) && err.code === 'deadline_exceeded'
          ? new ApiError('deadline_exceeded', { timeoutMs })
          : err;
      });
    return {
      success: true as const,
      data: out.hits.map((h) => ({
        url: h.url,
        title: h.title,
        description: h.description,
        ...(h.document ? toDocumentJson(h.document, render?.formats ?? []) : {}),
        ...(h.error ? { error: h.error } : {}),
      })),
      provider: out.provider as 'builtin' | 'searxng' | 'brave',
      usage: toUsageObject(out.usage),
    };
  },
});
