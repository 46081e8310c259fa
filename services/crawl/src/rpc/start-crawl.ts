import { randomUUID } from 'node:crypto';
import { create, equals, fromJson, toJson } from '@bufbuild/protobuf';
import { priceMeter } from '@wap/billing';
import { ApiError } from '@wap/errors';
import { headerProblem, newWebhookSecret } from '@wap/fetch';
import { type AllowList, checkUrl } from '@wap/netguard';
import { crawl } from '@wap/proto';
import { checkModelFormats } from '../clients/model-formats.js';
import { DEFAULT_MAX_PER_HOST } from '../domain/crawl-options.js';
import { compilePatterns, urlKey } from '../domain/scope.js';
import { formatsOf } from '../pipeline/scrape.js';
import type { CrawlRow } from '../store/crawls.js';
import type { NewUrl } from '../store/deliveries.js';
import {
  type KeptWebhook,
  keepWebhook,
  openWebhook,
  type StoredWebhook,
  WEBHOOK_EVENTS,
  type WebhookEvent,
} from '../store/webhooks.js';
import { toCrawl } from '../views/crawl.js';
import type { CrawlDeps } from './deps.js';
import { invalid, parseCrawlRef, requireOperation } from './parse.js';

const MAX_CRAWL_LIMIT = 10_000;
/** A crawl that runs longer is settled by the sweeper with what it has. */
const MAX_CRAWL_MS = 12 * 3_600_000;

/**
 * crawl.StartCrawl: a hold for the crawl's `limit` pages, the crawl's row and
 * its first URL on the frontier; a retried start (same operation) is the same crawl.
 */
export const startCrawl =
  (deps: CrawlDeps) =>
  async (req: crawl.StartCrawlRequest): Promise<crawl.StartCrawlResponse> => {
    if (req.appendToId) return appendToBatch(deps, req);
    const { options, start, key, more } = parseStartCrawl(req, deps.allow);
    const webhook = parseWebhook(req.webhook, deps.allow);
    // A webhook's URL, headers and secret are kept sealed: without the key, none is taken.
    const sealing = deps.webhookKey;
    if (webhook && !sealing) throw new ApiError('capability_unavailable', { capability: 'webhooks' });
    // Each page's model formats are asked of the agent: a model or schema it cannot use is refused now.
    const scrape = options.scrapeOptions ?? create(crawl.ScrapeOptionsSchema, {});
    await checkModelFormats(deps.modelFormats, req.workspaceId, formatsOf(scrape), scrape);
    // Named before the hold so its usage rows are listed under the crawl's id. A retried start
    // gets the first attempt's hold (idempotent) and row (crawls.create), so the two still agree.
    const id = randomUUID();
    const hold = await deps.ledger.authorize({
      workspaceId: req.workspaceId,
      idempotencyKey: `crawl:${req.requestId}:hold`,
      capability: 'crawl',
      millicredits: priceMeter('page_load', BigInt(options.limit)),
      ttlSeconds: Math.ceil(MAX_CRAWL_MS / 1000) + 3_600,
      reference: id,
    });
    let row: CrawlRow;
    let kept: KeptWebhook | undefined;
    try {
      ({ crawl: row, webhook: kept } = await deps.crawls.create({
        id,
        workspaceId: req.workspaceId,
        requestId: req.requestId,
        start: { key, url: start.href, host: start.host, depth: 0 },
        more,
        options: toJson(crawl.CrawlOptionsSchema, options),
        holdId: hold.holdId,
        limit: options.limit,
        deadlineAt: new Date(Date.now() + MAX_CRAWL_MS),
        sitemapsPending: options.sitemap !== crawl.SitemapMode.SKIP,
        ...(webhook && sealing && { webhook: keepWebhook(sealing, id, webhook) }),
      }));
    } catch (err) {
      await deps.ledger.void({ holdId: hold.holdId }).catch(() => undefined);
      throw err;
    }
    // Published again on a retried start: the de-duplication window or the take makes it harmless.
    await deps.frontier.publish(row.id, [{ key, url: start.href, host: start.host }, ...more]);
    // A retried start answers the first start's secret, opened from the row it made.
    const webhookSecret = kept && sealing ? openWebhook(sealing, row.id, kept).secret : undefined;
    return create(crawl.StartCrawlResponseSchema, { crawl: await toCrawl(deps, row, false), webhookSecret });
  };

/**
 * Pages added to a running batch of the workspace (Firecrawl's `appendToId`), scraped as its
 * others are: a hold of their own for the distinct new ones, recorded on the batch and settled
 * and voided as its first hold is. Another workspace's batch is not found, as a missing one; a
 * crawl, a batch that ended or was cancelled, or scrape options not the batch's are refused.
 */
async function appendToBatch(deps: CrawlDeps, req: crawl.StartCrawlRequest): Promise<crawl.StartCrawlResponse> {
  requireOperation(req);
  const { crawlId } = parseCrawlRef({ workspaceId: req.workspaceId, crawlId: req.appendToId });
  if (req.webhook) invalid('webhook', 'a batch’s webhook is the one it started with');
  const row = await deps.crawls.get(req.workspaceId, crawlId);
  if (!row) throw new ApiError('not_found', { resource: 'batch', id: crawlId });
  const options = fromJson(crawl.CrawlOptionsSchema, row.options as never);
  if (!options.batch) invalid('appendToId', 'a crawl: pages are appended to a batch scrape only');
  refuseEnded(row);
  const asked = req.options?.scrapeOptions ?? create(crawl.ScrapeOptionsSchema, {});
  if (!equals(crawl.ScrapeOptionsSchema, asked, options.scrapeOptions ?? create(crawl.ScrapeOptionsSchema, {})))
    invalid(
      'appendToId',
      'the pages of a batch are scraped with its own options: append with the same formats and options',
    );
  if (req.urls.length === 0) invalid('urls', 'at least one page to append');
  const urls = distinctPages(req.urls, options, deps.allow);
  if (row.limit + urls.length > MAX_CRAWL_LIMIT) invalid('urls', `a batch holds at most ${MAX_CRAWL_LIMIT} pages`);
  const hold = await deps.ledger.authorize({
    workspaceId: req.workspaceId,
    idempotencyKey: `crawl:${req.requestId}:hold`,
    capability: 'crawl',
    millicredits: priceMeter('page_load', BigInt(urls.length)),
    ttlSeconds: Math.ceil((row.createdAt.getTime() + MAX_CRAWL_MS - Date.now()) / 1000) + 3_600,
    reference: crawlId,
  });
  const appended = await deps.crawls
    .append({ workspaceId: req.workspaceId, crawlId, requestId: req.requestId, holdId: hold.holdId, urls })
    .catch(async (err: unknown) => {
      await deps.ledger.void({ holdId: hold.holdId }).catch(() => undefined);
      throw err;
    });
  // A retried append keeps its hold; one that added nothing, or found the batch gone or ended, releases it.
  if (appended.state !== 'retried' && (appended.state !== 'appended' || appended.fresh.length === 0))
    await deps.ledger.void({ holdId: hold.holdId });
  if (appended.state === 'missing') throw new ApiError('not_found', { resource: 'batch', id: crawlId });
  if (appended.state === 'ended') refuseEnded(appended.crawl, true);
  if (appended.state === 'appended') await deps.frontier.publish(crawlId, appended.fresh);
  return create(crawl.StartCrawlResponseSchema, { crawl: await toCrawl(deps, appended.crawl, false) });
}

/** A batch that no longer takes pages (cancelled, or closed: ending or settled) is refused, saying how it stands. */
function refuseEnded(row: Pick<CrawlRow, 'status' | 'outcome'>, closed = false): void {
  if (row.status === 'running' && !closed) return;
  const how = row.status === 'cancelled' ? 'was cancelled' : `has ended (${row.outcome ?? 'completed'})`;
  invalid('appendToId', `the batch ${how}: it takes no more pages; start a new batch`);
}

const MAX_WEBHOOK_HEADERS = 20;
const MAX_WEBHOOK_METADATA_BYTES = 4_096;
/** Headers a delivery sets itself (its body, its signature) or HTTP's own framing: never the caller's. */
const SET_BY_SENDER =
  /^(?:host|content-(?:type|length|encoding)|transfer-encoding|connection|keep-alive|upgrade|expect|te|trailer|webhook-.*)$/i;

/**
 * A crawl's webhook checked before anything is held: a URL the egress guard lets through (https;
 * plain http only where an egress allow-list is set, as for monitors' webhooks), headers that
 * can be sent, metadata of at most 4 KiB, known events; a new secret signs its deliveries.
 */
export function parseWebhook(hook: crawl.CrawlWebhook | undefined, allow: AllowList): StoredWebhook | undefined {
  if (!hook) return undefined;
  const url = checkUrl(hook.url, { allow, field: 'webhook.url' });
  const plainHttp = !allow.empty && url.protocol === 'http:';
  if (url.protocol !== 'https:' && !plainHttp) invalid('webhook.url', 'an https URL');
  if (url.username || url.password) invalid('webhook.url', 'no credentials in the URL: send them in `headers`');
  const headers = Object.entries(hook.headers);
  if (headers.length > MAX_WEBHOOK_HEADERS) invalid('webhook.headers', `at most ${MAX_WEBHOOK_HEADERS}`);
  for (const [name, value] of headers) {
    const problem = headerProblem(name, value);
    if (problem) invalid(`webhook.headers.${name}`, problem);
    if (SET_BY_SENDER.test(name)) invalid(`webhook.headers.${name}`, 'set by the server on each delivery');
  }
  const metadata = hook.metadata ?? {};
  if (JSON.stringify(metadata).length > MAX_WEBHOOK_METADATA_BYTES)
    invalid('webhook.metadata', `at most ${MAX_WEBHOOK_METADATA_BYTES} bytes of JSON`);
  const events = [...new Set(hook.events)];
  const unknown = events.findIndex((e) => !WEBHOOK_EVENTS.includes(e as WebhookEvent));
  if (unknown >= 0) invalid(`webhook.events.${unknown}`, `one of ${WEBHOOK_EVENTS.join(', ')}`);
  return {
    url: url.href,
    headers: hook.headers,
    metadata: metadata as Record<string, unknown>,
    events: events as WebhookEvent[],
    secret: newWebhookSecret(),
  };
}

/**
 * The request checked before anything is held: an operation to bill, a limit
 * in range, include and exclude patterns that compile, and a start URL the
 * egress guard lets through; the options with the per-host default filled in.
 */
export function parseStartCrawl(req: crawl.StartCrawlRequest, allow: AllowList) {
  requireOperation(req);
  const options = req.options ?? create(crawl.CrawlOptionsSchema, {});
  if (req.urls.length > 0) asBatch(req, options);
  if (options.limit < 1 || options.limit > MAX_CRAWL_LIMIT) invalid('limit', `between 1 and ${MAX_CRAWL_LIMIT}`);
  for (const [path, patterns] of [
    ['includePaths', options.includePaths],
    ['excludePaths', options.excludePaths],
  ] as const) {
    const compiled = compilePatterns(patterns);
    if ('bad' in compiled) invalid(`${path}.${compiled.bad}`, 'not a valid regular expression');
  }
  const start = checkUrl(req.url, { allow, field: options.batch ? 'urls.0' : 'url' });
  const key = urlKey(start, { ignoreQuery: options.ignoreQueryParameters });
  if (!key) invalid('url', 'must be an http or https URL');
  if (!options.maxConcurrencyPerHost) options.maxConcurrencyPerHost = DEFAULT_MAX_PER_HOST;
  return { options, start, key, more: batchPages(req, options, allow, key) };
}

/**
 * A batch scrape is a crawl of its pages alone: the first is its start, each is
 * scraped as a page (robots.txt is not read, as for a scrape), no link is followed
 * and no sitemap read; one page per distinct URL, so `limit` is their number.
 */
function asBatch(req: crawl.StartCrawlRequest, options: crawl.CrawlOptions) {
  if (req.urls.length > MAX_CRAWL_LIMIT) invalid('urls', `at most ${MAX_CRAWL_LIMIT}`);
  req.url = req.urls[0] ?? '';
  options.limit = req.urls.length;
  options.batch = true;
  options.maxDepth = 0;
  options.sitemap = crawl.SitemapMode.SKIP;
  options.ignoreRobotsTxt = true;
  options.allowExternalLinks = true;
  options.allowSubdomains = true;
  options.includePaths = [];
  options.excludePaths = [];
}

/** A batch's pages after its first, each checked as a start URL is; duplicates are one page. */
function batchPages(req: crawl.StartCrawlRequest, options: crawl.CrawlOptions, allow: AllowList, first: string) {
  if (!options.batch) return [];
  const more = distinctPages(req.urls, options, allow).filter((u) => u.key !== first);
  options.limit = more.length + 1;
  return more;
}

/** Pages of a batch (or of an append to one), each checked as a start URL is, each key once. */
function distinctPages(urls: string[], options: crawl.CrawlOptions, allow: AllowList): NewUrl[] {
  const pages = new Map<string, NewUrl>();
  for (const [i, raw] of urls.entries()) {
    const url = checkUrl(raw, { allow, field: `urls.${i}` });
    const key = urlKey(url, { ignoreQuery: options.ignoreQueryParameters });
    if (!key) invalid(`urls.${i}`, 'must be an http or https URL');
    if (!pages.has(key)) pages.set(key, { key, url: url.href, host: url.host, depth: 0 });
  }
  return [...pages.values()];
}
