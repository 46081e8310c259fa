// The frontier's URLs (crawl_urls): one row per URL a crawl knows, pending,
// then fetching under a lease, then done, failed or skipped. Every step a
// worker takes is one short transaction; locks are always taken URL row first,
// then host row, then the crawl row (closing a crawl too: crawls.ts), so two
// workers never wait on each other in a circle. Takes and deliveries go in
// batches (a batch of deliveries: deliveries.ts); a take batch also records the
// worker's finished downloads (downloads-done.ts), freeing their places in
// their hosts without waiting for rows another transaction holds.
import { Batcher, type BatchSettings } from '@wap/service';
import type { PoolClient } from 'pg';
import { type CrawlDatabase, firstRow } from './database.js';
import { type Delivered, type Delivery, deliverMany, type IndexFields, type NewUrl } from './deliveries.js';
import { DownloadsDone } from './downloads-done.js';

/** What a worker may do with a URL it was handed (the answer of `crawl_take`). */
export type Take =
  | { kind: 'gone' } // no such crawl or URL: drop the message
  | { kind: 'finished'; state: 'done' | 'failed' | 'skipped' } // already handled
  | { kind: 'stopped' } // the crawl is no longer running
  | { kind: 'wait'; ms: number } // not now: politeness, the limit or another worker's lease
  | { kind: 'needs-host' } // robots.txt of the host not read yet
  | { kind: 'skip'; reason: 'robots' | 'limit' }
  | { kind: 'fetch'; depth: number };

export interface TakeSettings {
  /** robots.txt allows the URL (or the crawl ignores robots.txt). */
  allowed: boolean;
  maxPerHost: number;
  leaseMs: number;
}

/** A URL as the frontier carries it. */
export interface QueuedUrl {
  key: string;
  url: string;
  host: string;
}

/** A row of `crawl_take_many` as a Take. */
function takeOf(row: { kind: string; wait_ms: number; depth: number } | undefined): Take {
  switch (row?.kind) {
    case undefined:
    case 'gone':
      return { kind: 'gone' };
    case 'done':
    case 'failed':
    case 'skipped':
      return { kind: 'finished', state: row.kind };
    case 'wait':
      return { kind: 'wait', ms: row.wait_ms };
    case 'stopped':
      return { kind: 'stopped' };
    case 'needs_host':
      return { kind: 'needs-host' };
    case 'robots':
    case 'limit':
      return { kind: 'skip', reason: row.kind };
    case 'fetch':
      return { kind: 'fetch', depth: row.depth };
    default:
      throw new Error(`crawl_take answered ${row?.kind}`);
  }
}

/** Moves a URL out of `fetching`; false when it was not (another worker finished it, or the crawl closed). */
async function leaveFetching(tx: PoolClient, crawlId: string, urlKey: string, state: 'failed' | 'pending' | 'skipped') {
  const { rowCount } = await tx.query(
    `UPDATE crawl_urls SET state = $3, lease_until = NULL WHERE crawl_id = $1 AND url_key = $2 AND state = 'fetching'`,
    [crawlId, urlKey, state],
  );
  return rowCount === 1;
}

/**
 * Records a URL's failure (its code and details, never billed) and counts it on
 * the crawl; `claims` is what it gives back of the crawl's claimed pages (1 when
 * its fetch held a claim).
 */
async function recordFailure(
  tx: PoolClient,
  failure: { crawlId: string; urlKey: string; url: string; code: string; details: unknown },
  claims: number,
) {
  await tx.query(
    `INSERT INTO crawl_failures (crawl_id, url_key, url, code, details) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT DO NOTHING`,
    [
      failure.crawlId,
      failure.urlKey,
      failure.url,
      failure.code,
      failure.details === undefined ? null : JSON.stringify(failure.details),
    ],
  );
  await tx.query(`UPDATE crawls SET failed = failed + 1, claimed = claimed - $2, progress_at = now() WHERE id = $1`, [
    failure.crawlId,
    claims,
  ]);
}

interface TakeCall {
  crawlId: string;
  urlKey: string;
  settings: TakeSettings;
}

/**
 * How a worker's steps are grouped: one batch of each kind out at a time, the
 * steps made meanwhile leave together when it answers (docs/decisions/0006, 10).
 */
export const STEP_BATCHING: BatchSettings = { maxInFlight: 1, maxBatch: 64 };

const fulfilled = <R>(value: R): PromiseSettledResult<R> => ({ status: 'fulfilled', value });

export class UrlStore {
  private readonly takes: Batcher<TakeCall, Take>;
  private readonly deliveries: Batcher<Delivery, Delivered | undefined>;
  /** Downloads done and not yet recorded; they go with the next takes. */
  private readonly downloads: DownloadsDone;

  constructor(
    private readonly db: CrawlDatabase,
    batching: BatchSettings = STEP_BATCHING,
  ) {
    this.takes = new Batcher((calls) => this.takeMany(calls), batching);
    this.deliveries = new Batcher((calls) => deliverMany(db, calls), batching);
    this.downloads = new DownloadsDone(db);
  }

  /** How many takes got each answer, for the logs. */
  private readonly takeAnswers: Record<string, number> = {};

  /** Steps sent and the batches they went in, and what takes answered, for the logs. */
  get batching() {
    return {
      takes: { ...this.takes.sent, answers: this.takeAnswers },
      downloads: this.downloads.sent,
      deliveries: this.deliveries.sent,
    };
  }

  /**
   * Decides (`crawl_take`, batched with the worker's other takes in
   * `crawl_take_many`) whether this worker fetches the URL now: the crawl
   * runs, no other worker holds a live lease on it, robots.txt allows it, the
   * host is due and has room, and the crawl's limit has room. On success the
   * URL is leased and counted in `claimed`.
   */
  take(crawlId: string, urlKey: string, settings: TakeSettings): Promise<Take> {
    return this.takes.call({ crawlId, urlKey, settings });
  }

  private async takeMany(calls: TakeCall[]): Promise<PromiseSettledResult<Take>[]> {
    const { rows } = await this.downloads.carry((downloaded) =>
      this.db.pool.query<{ i: number; kind: string; wait_ms: number; depth: number }>(
        `SELECT i, kind, wait_ms, depth
           FROM crawl_take_many($1::uuid[], $2::text[], $3::boolean[], $4::int[], $5, $6::uuid[], $7::text[])`,
        [
          calls.map((c) => c.crawlId),
          calls.map((c) => c.urlKey),
          calls.map((c) => c.settings.allowed),
          calls.map((c) => c.settings.maxPerHost),
          Math.max(...calls.map((c) => c.settings.leaseMs)),
          downloaded.map((d) => d.crawlId),
          downloaded.map((d) => d.urlKey),
        ],
      ),
    );
    const answers = new Map(rows.map((r) => [r.i, r]));
    for (const r of rows) this.takeAnswers[r.kind] = (this.takeAnswers[r.kind] ?? 0) + 1;
    return calls.map((_, i) => {
      const row = answers.get(i + 1);
      try {
        return fulfilled(takeOf(row));
      } catch (reason) {
        return { status: 'rejected', reason };
      }
    });
  }

  /**
   * Delivers a fetched page (`crawl_deliver_many`, with the worker's other
   * deliveries of the moment): the URL is done, its new links are queued, the
   * page takes the next `seq` under the crawl row's lock (so pages commit in
   * `seq` order) and goes into the search index. Returns the links to publish and whether the crawl may have ended,
   * or undefined when another worker already delivered this URL or the crawl was closed. With `pageEvent`
   * (the crawl's webhook wants pages), the page's event is queued in the same transaction.
   */
  deliver(
    crawlId: string,
    urlKey: string,
    page: { depth: number; document: Uint8Array },
    links: NewUrl[],
    indexed: IndexFields,
    landed?: NewUrl,
    pageEvent?: string,
  ): Promise<Delivered | undefined> {
    return this.deliveries.call({ crawlId, urlKey, page, links, indexed, landed, pageEvent });
  }

  /**
   * The URL's request to its host is done: its place in the host's
   * concurrency is free. Recorded with this worker's next takes, or on its
   * own when no take comes (downloads-done.ts).
   */
  downloaded(crawlId: string, urlKey: string): void {
    this.downloads.add(crawlId, urlKey);
  }

  /**
   * Adds the URLs a page's sitemaps list once the page is delivered
   * (`crawl_add_urls`): new ones become the page's pending children, and the
   * crawl's sitemaps are no longer pending. Returns the new ones to publish.
   */
  async addUrls(crawlId: string, parentKey: string, urls: NewUrl[]): Promise<NewUrl[]> {
    const row = await firstRow<{ fresh: string[] }>(
      this.db.pool,
      'SELECT crawl_add_urls($1, $2, $3::text[], $4::text[], $5::text[], $6::int[]) AS fresh',
      [
        crawlId,
        parentKey,
        urls.map((u) => u.key),
        urls.map((u) => u.url),
        urls.map((u) => u.host),
        urls.map((u) => u.depth),
      ],
    );
    const fresh = new Set(row?.fresh ?? []);
    return urls.filter((u) => fresh.has(u.key));
  }

  /** The still-pending URLs a delivered page found, to publish again after a worker died before publishing. */
  async pendingChildren(crawlId: string, parentKey: string): Promise<QueuedUrl[]> {
    const { rows } = await this.db.pool.query<QueuedUrl>(
      `SELECT url_key AS key, url, host FROM crawl_urls WHERE crawl_id = $1 AND parent_key = $2 AND state = 'pending'`,
      [crawlId, parentKey],
    );
    return rows;
  }

  /** A page that could not be delivered: recorded with its code, its claim given back (never billed). */
  async fail(crawlId: string, urlKey: string, url: string, code: string, details: unknown): Promise<void> {
    await this.db.transaction(async (tx) => {
      const mine = await leaveFetching(tx, crawlId, urlKey, 'failed');
      if (mine) await recordFailure(tx, { crawlId, urlKey, url, code, details }, 1);
    });
  }

  /**
   * Fails a URL that was never fetched (a start page robots.txt forbids):
   * recorded with its code, as a page that failed is, and never billed. False
   * when the URL is not waiting to be taken (it ended, or another worker holds
   * it) or the crawl no longer runs: the take says what became of it.
   */
  async failUnfetched(crawlId: string, urlKey: string, url: string, code: string, details: unknown): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      // URL row first, then the crawl row, as every step locks them.
      const row = await firstRow<{ takeover: boolean }>(
        tx,
        `SELECT state = 'fetching' AS takeover FROM crawl_urls
          WHERE crawl_id = $1 AND url_key = $2 AND (state = 'pending' OR (state = 'fetching' AND lease_until <= now()))
            FOR UPDATE`,
        [crawlId, urlKey],
      );
      if (!row) return false;
      const running = await firstRow(
        tx,
        `SELECT 1 FROM crawls WHERE id = $1 AND status = 'running' AND closed_at IS NULL FOR UPDATE`,
        [crawlId],
      );
      if (!running) return false;
      await tx.query(
        `UPDATE crawl_urls SET state = 'failed', lease_until = NULL, download_until = NULL
          WHERE crawl_id = $1 AND url_key = $2`,
        [crawlId, urlKey],
      );
      // A lapsed fetch's claim still counted (crawl_take's takeover): it is given back.
      await recordFailure(tx, { crawlId, urlKey, url, code, details }, row.takeover ? 1 : 0);
      return true;
    });
  }

  /** Extends the lease of a URL this worker is still fetching. */
  async renew(crawlId: string, urlKey: string, leaseMs: number): Promise<void> {
    await this.db.pool.query(
      `UPDATE crawl_urls SET lease_until = now() + make_interval(secs => $3::double precision / 1000)
        WHERE crawl_id = $1 AND url_key = $2 AND state = 'fetching'`,
      [crawlId, urlKey, leaseMs],
    );
  }

  /** Whether a URL is already known to the crawl (queued, fetched, or where a redirect landed). */
  async known(crawlId: string, urlKey: string): Promise<boolean> {
    const row = await firstRow(this.db.pool, `SELECT 1 FROM crawl_urls WHERE crawl_id = $1 AND url_key = $2`, [
      crawlId,
      urlKey,
    ]);
    return row !== undefined;
  }

  /** A fetched URL that redirected to a page the crawl has already: skipped, its claim given back, not billed. */
  async skipDuplicate(crawlId: string, urlKey: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (await leaveFetching(tx, crawlId, urlKey, 'skipped'))
        await tx.query(
          `UPDATE crawls SET skipped = skipped + 1, claimed = claimed - 1, progress_at = now() WHERE id = $1`,
          [crawlId],
        );
    });
  }

  /**
   * Puts a URL back to pending after an error that was not the page's fault
   * (ledger or database down, the browser host failing). With `failure`, the
   * try is counted: the URL's `maxAttempts`-th such try fails it instead,
   * recorded with that error (never billed), so a page that can never be
   * fetched ends as a failure of the crawl rather than a message offered
   * again forever. Answers what became of it (`not-mine`: another worker has
   * it, or the crawl was closed).
   */
  async release(
    crawlId: string,
    urlKey: string,
    failure?: { code: string; details: unknown; maxAttempts: number },
  ): Promise<'released' | 'failed' | 'not-mine'> {
    return this.db.transaction(async (tx) => {
      const row = await firstRow<{ attempts: number; url: string }>(
        tx,
        `UPDATE crawl_urls SET state = 'pending', lease_until = NULL, attempts = attempts + $3::int
          WHERE crawl_id = $1 AND url_key = $2 AND state = 'fetching' RETURNING attempts, url`,
        [crawlId, urlKey, failure ? 1 : 0],
      );
      if (!row) return 'not-mine';
      if (!failure || row.attempts < failure.maxAttempts) {
        await tx.query(`UPDATE crawls SET claimed = claimed - 1 WHERE id = $1`, [crawlId]);
        return 'released';
      }
      await tx.query(`UPDATE crawl_urls SET state = 'failed' WHERE crawl_id = $1 AND url_key = $2`, [crawlId, urlKey]);
      await recordFailure(tx, { crawlId, urlKey, url: row.url, code: failure.code, details: failure.details ?? {} }, 1);
      return 'failed';
    });
  }

  /**
   * The pending URLs of a crawl, to queue again when its messages were lost;
   * marks the crawl as requeued (not as progress: see `CrawlStore.stale`).
   */
  async requeue(crawlId: string): Promise<QueuedUrl[]> {
    return this.db.transaction(async (tx) => {
      await tx.query(`UPDATE crawls SET requeued_at = now() WHERE id = $1`, [crawlId]);
      const { rows } = await tx.query<QueuedUrl>(
        `SELECT url_key AS key, url, host FROM crawl_urls
          WHERE crawl_id = $1 AND (state = 'pending' OR (state = 'fetching' AND lease_until < now()))`,
        [crawlId],
      );
      return rows;
    });
  }
}
