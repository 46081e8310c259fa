import { randomUUID } from 'node:crypto';
import { create, fromBinary, fromJson, type JsonObject, type JsonValue, toJson } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { type LedgerClient, priceMeter } from '@wap/billing';
import { ApiError } from '@wap/errors';
import { type AllowList, checkUrl } from '@wap/netguard';
import { crawl, ledger } from '@wap/proto';
import { compilePatterns, urlKey } from '../crawl/scope.js';
import type { CrawlRow, CrawlStore } from '../crawl/store.js';
import { type CrawlWorker, DEFAULT_MAX_PER_HOST, type Frontier } from '../crawl/worker.js';
import { formatsOf } from '../pipeline/scrape.js';

export const MAX_CRAWL_LIMIT = 10_000;
/** A crawl that runs longer is settled by the sweeper with what it has. */
export const MAX_CRAWL_MS = 12 * 3_600_000;
const MAX_FAILURES_SHOWN = 1_000;
const DEFAULT_RESULTS_PAGE = 50;
const MAX_RESULTS_PAGE = 100;
const MAX_RESULTS_BYTES = 10 * 1024 * 1024;

export interface CrawlRpcDeps {
  store: CrawlStore;
  ledger: LedgerClient;
  frontier: Frontier;
  worker: CrawlWorker;
  allow: AllowList;
}

function invalid(path: string, message: string): never {
  throw new ApiError('bad_request', { issues: [{ path, message }] });
}

async function toCrawl(store: CrawlStore, row: CrawlRow, withFailures: boolean): Promise<crawl.Crawl> {
  const failures = withFailures && row.failed > 0 ? await store.failures(row.id, MAX_FAILURES_SHOWN) : [];
  const spent = priceMeter('page_load', BigInt(row.completed));
  return create(crawl.CrawlSchema, {
    id: row.id,
    status: row.status,
    // A crawl is closed with its outcome a moment before it settles: the outcome shows with the settlement.
    outcome: row.status === 'settled' ? (row.outcome ?? '') : '',
    url: row.url,
    limit: row.limit,
    discovered: row.discovered,
    completed: row.completed,
    failed: row.failed,
    skipped: row.skipped,
    // Each delivered page is one page load (billed in blocks): the spend is the count, read without a ledger call.
    usage: {
      meters:
        row.completed > 0
          ? [{ meter: ledger.Meter.PAGE_LOAD, quantity: BigInt(row.completed), millicredits: spent }]
          : [],
      millicredits: spent,
    },
    failures: failures.map((f) => ({
      url: f.url,
      code: f.code,
      details: (f.details ?? undefined) as JsonObject | undefined,
    })),
    createdAt: timestampFromDate(row.createdAt),
    finishedAt: row.finishedAt ? timestampFromDate(row.finishedAt) : undefined,
    options: fromJson(crawl.CrawlOptionsSchema, row.options as JsonValue),
  });
}

/** The cursor names the crawl and the last page read: opaque to clients, useless on another crawl. */
const encodeCursor = (crawlId: string, seq: number) => Buffer.from(`${crawlId}:${seq}`).toString('base64url');

function decodeCursor(cursor: string, crawlId: string): number {
  if (!cursor) return 0;
  const [id, seq] = Buffer.from(cursor, 'base64url').toString().split(':');
  const n = Number(seq);
  if (id !== crawlId || !Number.isInteger(n) || n < 0) invalid('cursor', 'not a cursor of this crawl');
  return n;
}

/** Crawl ids are UUIDs; anything else is a crawl that does not exist. */
const isCrawlId = (id: string) => /^[0-9a-f-]{36}$/i.test(id);

export function crawlRpcs(deps: CrawlRpcDeps) {
  const found = async (workspaceId: string, crawlId: string) => {
    const row = isCrawlId(crawlId) ? await deps.store.get(workspaceId, crawlId) : undefined;
    if (!row) throw new ApiError('not_found');
    return row;
  };

  return {
    startCrawl: async (req: crawl.StartCrawlRequest): Promise<crawl.StartCrawlResponse> => {
      if (!req.workspaceId || !req.requestId) invalid('requestId', 'required');
      const options = req.options ?? create(crawl.CrawlOptionsSchema, {});
      if (options.limit < 1 || options.limit > MAX_CRAWL_LIMIT) invalid('limit', `between 1 and ${MAX_CRAWL_LIMIT}`);
      for (const [path, patterns] of [
        ['includePaths', options.includePaths],
        ['excludePaths', options.excludePaths],
      ] as const) {
        const compiled = compilePatterns(patterns);
        if ('bad' in compiled) invalid(`${path}.${compiled.bad}`, 'not a valid regular expression');
      }
      const start = checkUrl(req.url, { allow: deps.allow });
      const key = urlKey(start, { ignoreQuery: options.ignoreQueryParameters });
      if (!key) invalid('url', 'must be an http or https URL');
      if (!options.maxConcurrencyPerHost) options.maxConcurrencyPerHost = DEFAULT_MAX_PER_HOST;

      const hold = await deps.ledger.authorize({
        workspaceId: req.workspaceId,
        idempotencyKey: `crawl:${req.requestId}:hold`,
        capability: 'crawl',
        millicredits: priceMeter('page_load', BigInt(options.limit)),
        ttlSeconds: Math.ceil(MAX_CRAWL_MS / 1000) + 3_600,
        reference: req.requestId,
      });
      let row: CrawlRow;
      try {
        ({ crawl: row } = await deps.store.create({
          id: randomUUID(),
          workspaceId: req.workspaceId,
          requestId: req.requestId,
          start: { key, url: start.href, host: start.host, depth: 0 },
          options: toJson(crawl.CrawlOptionsSchema, options),
          holdId: hold.holdId,
          limit: options.limit,
          deadlineAt: new Date(Date.now() + MAX_CRAWL_MS),
          sitemapsPending: options.sitemap !== crawl.SitemapMode.SKIP,
        }));
      } catch (err) {
        await deps.ledger.void({ holdId: hold.holdId }).catch(() => undefined);
        throw err;
      }
      // Published again on a retried start: the de-duplication window or the take makes it harmless.
      await deps.frontier.publish(row.id, [{ key, url: start.href, host: start.host }]);
      return create(crawl.StartCrawlResponseSchema, { crawl: await toCrawl(deps.store, row, false) });
    },

    getCrawl: async (req: crawl.GetCrawlRequest): Promise<crawl.GetCrawlResponse> => {
      const row = await found(req.workspaceId, req.crawlId);
      return create(crawl.GetCrawlResponseSchema, { crawl: await toCrawl(deps.store, row, true) });
    },

    crawlResults: async (req: crawl.CrawlResultsRequest): Promise<crawl.CrawlResultsResponse> => {
      const row = await found(req.workspaceId, req.crawlId);
      const after = decodeCursor(req.cursor, row.id);
      const size = req.pageSize > 0 ? Math.min(req.pageSize, MAX_RESULTS_PAGE) : DEFAULT_RESULTS_PAGE;
      const pages = await deps.store.pages(row.id, after, size, MAX_RESULTS_BYTES);
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
    },

    cancelCrawl: async (req: crawl.CancelCrawlRequest): Promise<crawl.CancelCrawlResponse> => {
      if (!isCrawlId(req.crawlId) || !(await deps.store.cancel(req.workspaceId, req.crawlId)))
        throw new ApiError('not_found');
      await deps.worker.finishIfDone(req.crawlId);
      const row = await found(req.workspaceId, req.crawlId);
      return create(crawl.CancelCrawlResponseSchema, { crawl: await toCrawl(deps.store, row, true) });
    },
  };
}

const fromBinaryDocument = (bytes: Uint8Array) => fromBinary(crawl.DocumentSchema, bytes);
