// A crawl and its delivered pages as the crawl routes answer them, and the words
// Firecrawl's clients read a crawl's progress in.

import { documentJson, formatNames } from '@wap/document-json';
import type { crawl } from '@wap/proto';
import { z } from 'zod';
import { isoTime, toUsageObject, usageObject } from '../usage-shape.js';
import { documentSchema } from './scrape.js';

const failure = z.object({
  url: z.string(),
  code: z.string().describe('The error code the page failed with (never billed).'),
  details: z.record(z.string(), z.unknown()).optional(),
});

export const crawlObject = z.object({
  id: z.string(),
  status: z
    .enum(['running', 'cancelled', 'settled'])
    .describe(
      '`running` takes pages; `cancelled` takes no new page while pages in flight finish; `settled` is final: the unused hold is released.',
    ),
  outcome: z
    .enum(['completed', 'failed', 'limit_reached', 'cancelled', 'expired'])
    .nullable()
    .describe(
      'How a settled crawl ended; null while it runs. `failed`: the start page could not be fetched, or its robots.txt forbids it, so nothing was crawled (its failure is in `failures`, nothing is billed).',
    ),
  url: z.string(),
  limit: z.number().int(),
  discovered: z.number().int().describe('URLs found and in scope (start page included).'),
  completed: z.number().int().describe('Pages delivered (and billed).'),
  failed: z.number().int().describe('Pages that could not be fetched (not billed); see `failures`.'),
  skipped: z.number().int().describe('URLs not fetched: robots.txt, the limit reached, or the crawl stopped.'),
  usage: usageObject.describe('What the crawl has cost so far: reading it never adds to it.'),
  failures: z.array(failure),
  createdAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  expiresAt: z
    .string()
    .nullable()
    .describe(
      'When the crawl and its pages are deleted (then it answers not_found): a retention time after it settled (7 days by default); while it runs, the earliest that can be.',
    ),
});

export function toCrawlJson(c: crawl.Crawl | undefined) {
  return {
    id: c?.id ?? '',
    status: (c?.status ?? 'running') as 'running' | 'cancelled' | 'settled',
    outcome: (c?.outcome || null) as 'completed' | 'failed' | 'limit_reached' | 'cancelled' | 'expired' | null,
    url: c?.url ?? '',
    limit: c?.limit ?? 0,
    discovered: c?.discovered ?? 0,
    completed: c?.completed ?? 0,
    failed: c?.failed ?? 0,
    skipped: c?.skipped ?? 0,
    usage: toUsageObject(c?.usage),
    failures: (c?.failures ?? []).map((f) => ({
      url: f.url,
      code: f.code,
      ...(f.details ? { details: f.details } : {}),
    })),
    createdAt: isoTime(c?.createdAt),
    finishedAt: isoTime(c?.finishedAt),
    expiresAt: isoTime(c?.expiresAt),
  };
}

export type CrawlJson = ReturnType<typeof toCrawlJson>;

/** Where a crawl answers: the `url` Firecrawl's clients get back, and where `next` links start. */
export const crawlLink = (publicUrl: string, id: string) =>
  `${publicUrl.replace(/\/+$/, '')}/v1/crawl/${encodeURIComponent(id)}`;

/** Delivered pages as crawl.results and crawl.get answer them. */
export const pagesJson = (out: crawl.CrawlResultsResponse) => {
  const formats = formatNames(out.formats);
  return out.pages.map((page) => ({ ...documentJson(page.document, formats), depth: page.depth }));
};
export const pageJson = documentSchema.extend({ depth: z.number().int() });

export const FIRECRAWL_STATUSES = ['scraping', 'completed', 'failed', 'cancelled'] as const;
/** The top-level `status` of a crawl's answers, the field Firecrawl's clients read. */
export const firecrawlStatusField = z.enum(FIRECRAWL_STATUSES);

/** Firecrawl's name for where a crawl is, the one its clients poll for; the crawl's own state stays `crawl.status`. */
export function firecrawlStatus(c: Pick<CrawlJson, 'status' | 'outcome'>): (typeof FIRECRAWL_STATUSES)[number] {
  if (c.status === 'running') return 'scraping';
  if (c.status === 'cancelled' || c.outcome === 'cancelled') return 'cancelled';
  return c.outcome === 'completed' || c.outcome === 'limit_reached' ? 'completed' : 'failed';
}
