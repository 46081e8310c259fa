// A crawl worker: takes URLs from the JetStream frontier, fetches them through
// the page pipeline, bills each delivered page once, and queues what it finds.
// Any number of workers share a crawl; a worker that dies mid-page leaves a
// lease that runs out and an un-acked message that another worker picks up.
import { fromJson, toBinary } from '@bufbuild/protobuf';
import {
  type BlockSettle,
  blockSettles,
  crawlBlocks,
  type LedgerClient,
  PAGES_PER_BLOCK,
  SettleBatcher,
  toMeters,
} from '@wap/billing';
import { documentJson, formatNames } from '@wap/document-json';
import { ApiError, isApiError } from '@wap/errors';
import type { Delivery, Retry } from '@wap/events';
import type { Logger } from '@wap/log';
import { crawl } from '@wap/proto';
import { DEFAULT_MAX_PER_HOST } from '../domain/crawl-options.js';
import { compilePatterns, inScope, type ScopeRules, urlKey } from '../domain/scope.js';
import { addModelFormats, type ModelFormatsDeps } from '../pipeline/model-formats.js';
import { type LoadedPage, loadPage, type PipelineDeps, pageLoads, toDocument } from '../pipeline/scrape.js';
import { fetchRobotsTxt, parseRobots, type Robots, sitemapUrls } from '../pipeline/site-files.js';
import { type CrawlRow, type CrawlStore, holdsOf } from '../store/crawls.js';
import type { NewUrl } from '../store/deliveries.js';
import type { HostStore } from '../store/hosts.js';
import { indexFields } from '../store/search-index.js';
import type { UrlStore } from '../store/urls.js';
import { deliverDocument } from './document-pages.js';
import type { Frontier, FrontierMessage } from './frontier.js';
import { HostGates } from './host-gate.js';
import { noPhases, type PhaseTimes, perPage, timed } from './page-phases.js';

/** Errors that are the page's fault: recorded as the URL's failure, never retried, never billed. */
const PAGE_FAILURES = new Set(['page_unreachable', 'document_unrepresentable', 'extraction_failed', 'bad_request']);

/** Links taken from one page, and URLs from the sitemaps: bounds on what one page can add. */
const MAX_LINKS_PER_PAGE = 1_000;

export interface WorkerDeps extends PipelineDeps, ModelFormatsDeps {
  crawls: CrawlStore;
  urls: UrlStore;
  hosts: HostStore;
  ledger: LedgerClient;
  frontier: Frontier;
  log: Logger;
  /** The frontier consumer's ack wait: a handler reports progress well within it. */
  ackWaitMs: number;
  /** Tries of a URL that may end in an error not the page's own before it fails with it (its dead letter). */
  maxAttempts?: number;
  /** A crawl without a page delivered or failed for this long ends as expired (0: only its deadline). */
  stallMs?: number;
}

export const DEFAULT_MAX_ATTEMPTS = 8;

interface Plan {
  /** The crawl row as first read: only its fixed fields (id, workspace, hold, limit) are used. */
  row: CrawlRow;
  options: crawl.CrawlOptions;
  scrape: crawl.ScrapeOptions;
  rules: ScopeRules;
  startKey: string;
  /**
   * URL keys this worker knows the crawl has (sent in a delivery or with the
   * sitemaps that committed): links to them are not sent again. Pages of a
   * site share most of their links (navigation, related pages); the database
   * still decides for every key not here.
   */
  known: Set<string>;
  /** Blocks of pages this worker billed (the rest are billed again when the crawl ends). */
  billed: Set<number>;
  /** Where this worker's pages of the crawl spent their time, for the log line of its end. */
  phases: PhaseTimes;
}

/** Keys a worker remembers per crawl; past this, links go to the database as they did. */
const MAX_KNOWN = 100_000;

export class CrawlWorker {
  private readonly plans = new Map<string, Plan>();
  private readonly robots = new Map<string, Robots>();
  private readonly stopping = new AbortController();
  private readonly gates = new HostGates();
  /** Blocks of pages settle in batches: one ledger call for those billed at once. */
  private readonly settles: SettleBatcher;

  constructor(private readonly deps: WorkerDeps) {
    this.settles = new SettleBatcher(deps.ledger);
  }

  stop() {
    this.stopping.abort(new ApiError('capability_unavailable', { capability: 'crawl' }));
  }

  /** How the crawl's pages are scraped. */
  scrapeOptionsOf(row: CrawlRow): crawl.ScrapeOptions {
    return this.plan(row).scrape;
  }

  private plan(row: CrawlRow): Plan {
    let plan = this.plans.get(row.id);
    if (!plan) {
      const options = fromJson(crawl.CrawlOptionsSchema, row.options as never);
      const include = compilePatterns(options.includePaths);
      const exclude = compilePatterns(options.excludePaths);
      const start = new URL(row.url);
      plan = {
        row,
        options,
        scrape: options.scrapeOptions ?? fromJson(crawl.ScrapeOptionsSchema, {}),
        rules: {
          start,
          maxDepth: options.maxDepth,
          includePaths: Array.isArray(include) ? include : [],
          excludePaths: Array.isArray(exclude) ? exclude : [],
          allowSubdomains: options.allowSubdomains,
          allowExternalLinks: options.allowExternalLinks,
        },
        startKey: urlKey(start, { ignoreQuery: options.ignoreQueryParameters }) ?? row.url,
        known: new Set(),
        billed: new Set(),
        phases: noPhases(),
      };
      if (this.plans.size > 1_000) this.plans.clear();
      this.plans.set(row.id, plan);
    }
    return plan;
  }

  private robotsOf(crawlId: string, host: string, text: string | null, origin: string): Robots {
    const key = `${crawlId} ${host}`;
    let robots = this.robots.get(key);
    if (!robots) {
      robots = parseRobots(origin, text);
      if (this.robots.size > 5_000) this.robots.clear();
      this.robots.set(key, robots);
    }
    return robots;
  }

  /** The crawl's fixed settings, read once per worker. */
  private async planOf(crawlId: string): Promise<Plan | undefined> {
    const known = this.plans.get(crawlId);
    if (known) return known;
    const row = await this.deps.crawls.crawl(crawlId);
    return row ? this.plan(row) : undefined;
  }

  /** robots.txt of a host for a crawl, as the first worker to ask stored it; undefined before anyone did. */
  private async robotsFor(crawlId: string, host: string, origin: string): Promise<Robots | undefined> {
    const key = `${crawlId} ${host}`;
    const cached = this.robots.get(key);
    if (cached) return cached;
    const stored = await this.deps.hosts.hostRobots(crawlId, host);
    return stored ? this.robotsOf(crawlId, host, stored.robots, origin) : undefined;
  }

  /** The frontier consumer's handler. */
  handle = async (delivery: Delivery<FrontierMessage>): Promise<Retry | undefined> => {
    const { crawlId, url, host } = delivery.data;
    const plan = await this.planOf(crawlId);
    if (!plan) return undefined; // no such crawl (here): nothing to do
    const origin = new URL(url).origin;
    const maxPerHost = plan.options.maxConcurrencyPerHost || DEFAULT_MAX_PER_HOST;
    const leave = await timed(plan.phases, 'gate', () =>
      this.gates.enter(`${crawlId} ${host}`, maxPerHost, () => delivery.working()),
    );
    if (!leave) return { retryInMs: 200 }; // this host has enough waiting here already
    try {
      return await this.takeAndFetch(delivery, plan, origin, maxPerHost, leave);
    } finally {
      leave();
    }
  };

  private async takeAndFetch(
    delivery: Delivery<FrontierMessage>,
    plan: Plan,
    origin: string,
    maxPerHost: number,
    leaveHost: () => void,
  ): Promise<Retry | undefined> {
    const { crawlId, urlKey: key, url, host } = delivery.data;
    const { crawls, urls, hosts } = this.deps;
    for (let attempt = 0; attempt < 2; attempt++) {
      const robots = plan.options.ignoreRobotsTxt ? undefined : await this.robotsFor(crawlId, host, origin);
      const allowed = robots?.allowed(url) ?? true;
      // A start page robots.txt forbids fails the crawl: nothing in it can be crawled, and it says why.
      if (!allowed && key === plan.startKey && (await this.refuseStart(plan, key, url))) return undefined;
      const take = await timed(plan.phases, 'take', () =>
        urls.take(crawlId, key, { allowed, maxPerHost, leaseMs: this.leaseMs }),
      );
      switch (take.kind) {
        case 'gone':
          return undefined;
        case 'wait':
          return { retryInMs: take.ms };
        case 'finished':
          // Delivered before, maybe by a worker that died before queueing what it found
          // (or, for the start page, before adding what its sitemaps list).
          if (take.state === 'done') {
            await this.deps.frontier.publish(crawlId, await urls.pendingChildren(crawlId, key));
            if (key === plan.startKey && (await crawls.crawl(crawlId))?.sitemapsPending)
              await this.addSitemapUrls(plan, key, this.sitemapsOf(plan.row, plan));
          }
          await this.finishIfDone(crawlId);
          return undefined;
        case 'stopped':
        case 'skip':
          // A start page skipped ends the crawl: its sitemaps are not followed.
          if (take.kind === 'skip' && key === plan.startKey) await this.addSitemapUrls(plan, key, Promise.resolve([]));
          await this.finishIfDone(crawlId);
          return undefined;
        case 'needs-host': {
          const text = plan.options.ignoreRobotsTxt
            ? null
            : await fetchRobotsTxt(origin, this.deps.agent, this.stopping.signal);
          const parsed = this.robotsOf(crawlId, host, text, origin);
          await hosts.ensureHost(crawlId, host, text, Math.max(plan.options.delayMs, parsed.delayMs ?? 0));
          continue;
        }
        case 'fetch':
          if (await this.fetchOne(delivery, key, url, take.depth, plan, leaveHost)) await this.finishIfDone(crawlId);
          return undefined;
      }
    }
    return { retryInMs: 100 };
  }

  /**
   * Fails the start page, which robots.txt forbids, as a page the site refused
   * (page_unreachable, reason blocked: never fetched, never billed); its
   * sitemaps are not followed, so the crawl ends failed. False when the page
   * was not waiting to be taken (the take then says what became of it).
   */
  private async refuseStart(plan: Plan, key: string, url: string): Promise<boolean> {
    const crawlId = plan.row.id;
    const details = { url, reason: 'blocked' };
    if (!(await this.deps.urls.failUnfetched(crawlId, key, url, 'page_unreachable', details))) return false;
    await this.addSitemapUrls(plan, key, Promise.resolve([]));
    await this.finishIfDone(crawlId);
    return true;
  }

  /**
   * A URL's lease: renewed while its worker is alive, so a worker that dies
   * gives its pages up within about two ack waits, however long pages take.
   */
  private get leaseMs() {
    return this.deps.ackWaitMs * 2;
  }

  /** Fetches, bills and delivers one URL; true when the crawl may have ended with it. */
  private async fetchOne(
    delivery: Delivery<FrontierMessage>,
    key: string,
    url: string,
    depth: number,
    plan: Plan,
    leaveHost: () => void,
  ): Promise<boolean> {
    const { urls, log } = this.deps;
    const row = plan.row;
    const keepalive = setInterval(
      () => {
        delivery.working();
        urls.renew(row.id, key, this.leaseMs).catch((err) => log.warn({ err }, 'lease renewal failed'));
      },
      Math.max(this.deps.ackWaitMs / 3, 200),
    );
    try {
      let links: NewUrl[];
      let landed: NewUrl | undefined;
      let document: crawl.Document;
      let extracted: LoadedPage['extracted'];
      let tokens = 0n;
      // The start page's sitemaps are read while the page loads, and what they list is
      // added once the page is delivered: the crawl starts on the page's own links at once.
      const sitemaps = key === plan.startKey && row.sitemapsPending ? this.sitemapsOf(row, plan) : undefined;
      try {
        // A page that needs the browser waits for one of the workspace's browser slots.
        const loaded = await timed(plan.phases, 'load', () =>
          loadPage(this.deps, url, plan.scrape, this.stopping.signal, {
            withLinks: true,
            slot: { workspaceId: row.workspaceId, wait: true },
            request: { workspaceId: row.workspaceId, requestId: row.id },
          }),
        );
        // Politeness counts requests out to the host, not pages being stored: the host's
        // place is given up now (recorded with this worker's next takes, which need it).
        urls.downloaded(row.id, key);
        leaveHost();
        landed = this.landedElsewhere(plan, key, depth, loaded.page.finalUrl);
        if (landed && (await urls.known(row.id, landed.key))) {
          // Redirected to a page this crawl has (or will have) under its own URL: not delivered twice, not billed.
          await urls.skipDuplicate(row.id, key);
          if (sitemaps) await this.addSitemapUrls(plan, key, Promise.resolve([]));
          return true;
        }
        extracted = loaded.extracted;
        document = toDocument(loaded.page, plan.scrape, false, extracted);
        // The model formats asked (json, summary): a page asked for them alone, none answered, fails here.
        tokens = await addModelFormats(this.deps, row.workspaceId, document, loaded, plan.scrape, this.stopping.signal);
        links = this.discover(plan, key, depth, extracted.links, []);
      } catch (err) {
        if (isApiError(err) && PAGE_FAILURES.has(err.code)) {
          await urls.fail(row.id, key, url, err.code, err.details);
          // A start page that fails ends the crawl: its sitemaps are not followed.
          if (sitemaps) await this.addSitemapUrls(plan, key, Promise.resolve([]));
          return true;
        }
        return await this.giveBack(plan, key, err, sitemaps);
      }
      const deliver = () =>
        urls
          .deliver(
            row.id,
            key,
            { depth, document: toBinaryDocument(document) },
            links,
            indexFields(document.url, extracted),
            landed,
            row.pageEvents ? JSON.stringify(documentJson(document, formatNames(plan.scrape.formats))) : undefined,
          )
          // Fetched but not stored (nor billed: pages are billed once delivered): fetched again later.
          .catch((err: unknown) => this.giveBack(plan, key, err, sitemaps));
      const further = pageLoads(document) - 1n;
      const billing = await timed(plan.phases, 'deliver', async () =>
        further > 0n ? await deliverDocument(this.deps, row, further, deliver) : { delivered: await deliver() },
      );
      if ('refused' in billing) {
        const err = billing.refused;
        if (!isApiError(err) || err.code !== 'quota_exceeded') return await this.giveBack(plan, key, err, sitemaps);
        // The balance cannot pay for the document's pages: it fails as the scrape of it would, nothing billed.
        await urls.fail(row.id, key, url, err.code, err.details);
        if (sitemaps) await this.addSitemapUrls(plan, key, Promise.resolve([]));
        return true;
      }
      const { delivered } = billing;
      if (delivered === true) return true;
      if (!delivered) return false; // another worker delivered it first, or the crawl was closed meanwhile
      if (delivered.seq % PAGES_PER_BLOCK === 0) this.billBlock(plan, delivered.seq / PAGES_PER_BLOCK - 1);
      if (tokens > 0n) this.recordTokens(plan, key, tokens);
      remember(plan, [key, ...links.map((l) => l.key), ...(landed ? [landed.key] : [])]);
      plan.phases.pages++;
      await timed(plan.phases, 'publish', () => this.deps.frontier.publish(row.id, delivered.queued));
      if (!sitemaps) return delivered.mayHaveEnded;
      await this.addSitemapUrls(plan, key, sitemaps);
      return true;
    } finally {
      clearInterval(keepalive);
    }
  }

  /**
   * A URL whose try failed for a reason not the page's own goes back to
   * pending and the error is thrown (the message is offered again later);
   * its `maxAttempts`-th such try fails it with that error instead (recorded
   * and never billed: the crawl is told), and the message is done. A worker
   * that is stopping gives its URLs back without counting.
   */
  private async giveBack(plan: Plan, key: string, err: unknown, sitemaps?: Promise<string[]>): Promise<true> {
    const { urls, log } = this.deps;
    const stopping = this.stopping.signal.aborted;
    const maxAttempts = this.deps.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    const failure = stopping
      ? undefined
      : {
          code: isApiError(err) ? err.code : 'internal',
          details: {
            ...(isApiError(err) && typeof err.details === 'object' ? err.details : {}),
            attempts: maxAttempts,
          },
          maxAttempts,
        };
    const fate = await urls.release(plan.row.id, key, failure);
    if (fate !== 'failed') throw err;
    log.warn({ err, crawlId: plan.row.id, urlKey: key }, 'a URL failed every try; recorded as failed');
    if (sitemaps) await this.addSitemapUrls(plan, key, Promise.resolve([]));
    return true;
  }

  /** Where a redirect took the page, when that is another URL of the crawl's. */
  private landedElsewhere(plan: Plan, key: string, depth: number, finalUrl: string): NewUrl | undefined {
    const finalKey = urlKey(finalUrl, { ignoreQuery: plan.options.ignoreQueryParameters });
    if (!finalKey || finalKey === key) return undefined;
    return { key: finalKey, url: finalKey, host: new URL(finalKey).host, depth };
  }

  /** The links of a page worth queueing, and for the start page, what its sitemaps list. */
  private discover(plan: Plan, key: string, depth: number, found: string[], sitemapped: string[]): NewUrl[] {
    const out = new Map<string, NewUrl>();
    const add = (href: string, at: number) => {
      // A link written exactly as a key the crawl has is that key (a key is its own key): most
      // links of a site's pages are, and are dropped here without being parsed twice.
      if (plan.known.has(href)) return;
      let link: URL;
      try {
        link = new URL(href);
      } catch {
        return;
      }
      if (!inScope(link, at, plan.rules)) return;
      const k = urlKey(link, { ignoreQuery: plan.options.ignoreQueryParameters });
      if (!k || k === key || out.has(k) || plan.known.has(k)) return;
      out.set(k, { key: k, url: k, host: new URL(k).host, depth: at });
    };
    if (plan.options.sitemap !== crawl.SitemapMode.ONLY)
      for (const href of found.slice(0, MAX_LINKS_PER_PAGE)) add(href, depth + 1);
    for (const href of sitemapped) add(href, 1);
    return [...out.values()];
  }

  /** Adds what the start page's sitemaps list (its pending children from now on) and queues the new ones. */
  private async addSitemapUrls(plan: Plan, key: string, sitemaps: Promise<string[]>): Promise<void> {
    const urls = this.discover(plan, key, 0, [], await sitemaps);
    const fresh = await this.deps.urls.addUrls(plan.row.id, key, urls);
    remember(
      plan,
      urls.map((u) => u.key),
    );
    await this.deps.frontier.publish(plan.row.id, fresh);
  }

  /** The page URLs the start host's sitemaps list (those robots.txt declares, else /sitemap.xml); [] if none. */
  private async sitemapsOf(row: CrawlRow, plan: Plan): Promise<string[]> {
    const origin = plan.rules.start.origin;
    try {
      const declared = (await this.robotsFor(row.id, plan.rules.start.host, origin))?.sitemaps ?? [];
      return await sitemapUrls(declared.length > 0 ? declared : [`${origin}/sitemap.xml`], {
        agent: this.deps.agent,
        maxUrls: Math.min(Math.max(row.limit * 10, 1_000), 50_000),
        // Sitemaps are files of the crawled host: no more at once than the crawl allows it.
        concurrency: Math.min(4, plan.options.maxConcurrencyPerHost || DEFAULT_MAX_PER_HOST),
        signal: this.stopping.signal,
      });
    } catch (err) {
      this.deps.log.warn({ err, crawlId: row.id }, 'sitemaps could not be read; links alone are followed');
      return [];
    }
  }

  /**
   * A full block of delivered pages, billed while the crawl goes on (against each hold its pages fall
   * in); a failure is made good when it ends.
   */
  private billBlock(plan: Plan, block: number): void {
    const { id } = plan.row;
    this.blockSettlesOf(plan, block)
      .then((settles) => Promise.all(settles.map((settle) => this.settles.settle(settle))))
      .then(() => plan.billed.add(block))
      .catch((err: unknown) =>
        this.deps.log.warn(
          { err, crawlId: id, block },
          'a block of pages could not be billed yet; billed when the crawl ends',
        ),
      );
  }

  /** A full block's settles; a block past the pages this worker knows held was appended since: the row is read again. */
  private async blockSettlesOf(plan: Plan, block: number): Promise<BlockSettle[]> {
    if ((block + 1) * PAGES_PER_BLOCK > plan.row.limit)
      plan.row = (await this.deps.crawls.crawl(plan.row.id)) ?? plan.row;
    return blockSettles(plan.row.id, holdsOf(plan.row), block, PAGES_PER_BLOCK);
  }

  /**
   * Settles the crawl when it has ended: it is closed (its count of delivered
   * pages final), every block of them is billed (those this worker has not
   * seen billed; the ledger answers a block settled before with its first
   * answer), the rest of each hold is released, and the crawl is marked settled.
   * Only the call that closes the crawl goes on to bill it, so the messages
   * still queued for it do not each bill it again; a step that fails leaves
   * the crawl closed, and the sweeper (`resume`) finishes it.
   */
  async finishIfDone(crawlId: string, { resume = false }: { resume?: boolean } = {}): Promise<void> {
    const { crawls, urls, ledger, log } = this.deps;
    const ending = await crawls.endingOf(crawlId, { stallMs: this.deps.stallMs });
    if (!ending) return;
    const closed = await crawls.close(crawlId, ending.outcome);
    if (!closed || (!closed.closedNow && !resume)) return; // settled meanwhile, or another is finishing it
    const billed = this.plans.get(crawlId)?.billed;
    const settles = crawlBlocks(closed.completed)
      .filter(({ block, pages }) => !(pages === PAGES_PER_BLOCK && billed?.has(block)))
      .flatMap(({ block, pages }) => blockSettles(crawlId, ending.holds, block, pages));
    const results = await Promise.allSettled(settles.map((settle) => this.settles.settle(settle)));
    for (const [i, result] of results.entries()) {
      const settle = settles[i];
      if (result.status === 'fulfilled' || !settle) continue;
      const code = isApiError(result.reason) ? result.reason.code : undefined;
      // Blocks never add up past the hold: one is refused only once the hold has
      // resolved (past its lifetime). Those pages were delivered: they are charged.
      if (code === 'cap_exceeded') await this.chargeBlock(crawlId, ending.workspaceId, settle);
      // Refused for good (the key used with another quantity, the hold gone): asking again changes nothing.
      else if (code === 'bad_request' || code === 'not_found')
        log.error({ crawlId, key: settle.idempotencyKey, code }, 'crawl pages left unbilled');
      // The ledger did not answer: the crawl stays closed, and the sweeper finishes it.
      else throw result.reason;
    }
    for (const { holdId } of ending.holds) await ledger.void({ holdId });
    if (await crawls.settle(crawlId))
      log.info(
        {
          crawlId,
          outcome: closed.outcome,
          batching: urls.batching,
          msPerPage: perPage(this.plans.get(crawlId)?.phases ?? noPhases()),
        },
        'crawl settled',
      );
  }

  /**
   * The tokens a delivered page's model formats spent, recorded at zero price under the crawl (pages
   * settle in blocks, which carry page loads only); once per page, by its key. Not awaited: a lost
   * record costs nothing and never holds the page back.
   */
  private recordTokens(plan: Plan, key: string, tokens: bigint): void {
    const { row } = plan;
    this.deps.ledger
      .charge({
        workspaceId: row.workspaceId,
        idempotencyKey: `crawl:${row.id}:tokens:${key}`,
        capability: 'crawl',
        reference: row.id,
        meters: toMeters([{ meter: 'tokens', quantity: tokens }]),
      })
      .catch((err: unknown) => this.deps.log.warn({ err, crawlId: row.id }, "a page's tokens were not recorded"));
  }

  /** A block its hold no longer covers, charged to the workspace instead (at most what it has left). */
  private async chargeBlock(crawlId: string, workspaceId: string, settle: BlockSettle): Promise<void> {
    try {
      await this.deps.ledger.charge({
        workspaceId,
        idempotencyKey: `${settle.idempotencyKey}:charge`,
        capability: 'crawl',
        reference: crawlId,
        meters: settle.meters,
      });
    } catch (err) {
      this.deps.log.error({ err, crawlId, key: settle.idempotencyKey }, 'crawl pages left unbilled');
    }
  }
}

/** Keys now in the crawl's database, as far as this worker is concerned. */
function remember(plan: Plan, keys: readonly string[]): void {
  for (const k of keys) {
    if (plan.known.size >= MAX_KNOWN) return;
    plan.known.add(k);
  }
}

const toBinaryDocument = (document: crawl.Document) => toBinary(crawl.DocumentSchema, document);
