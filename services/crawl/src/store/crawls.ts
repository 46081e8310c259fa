// The crawl rows (crawls): what a crawl was asked (its options, limit and
// hold), its counters, and how it ends: cancelled, closed with an outcome,
// settled, purged past retention. Closing locks as every step of the frontier
// does (urls.ts): URL rows first, then the crawl row.
import type { PageHold } from '@wap/billing';
import { type CrawlDatabase, firstRow } from './database.js';
import type { NewUrl } from './deliveries.js';
import { type KeptWebhook, queueWebhook } from './webhooks.js';

export type CrawlStatus = 'running' | 'cancelled' | 'settled';
/** How a crawl ended; `failed`: nothing in scope was left, none of it delivered, and the start page failed. */
export type CrawlOutcome = 'completed' | 'failed' | 'limit_reached' | 'cancelled' | 'expired';

/** Whether an outcome is a crawl's success (its webhook's `completed`) or not (`failed`). */
const ENDED: Record<CrawlOutcome, boolean> = {
  completed: true,
  limit_reached: true,
  failed: false,
  cancelled: false,
  expired: false,
};

/** A hold of pages appended to a batch: the append's request, and the pages it covers. */
export interface AppendedHold extends PageHold {
  requestId: string;
}

/** Every hold of the crawl, each with the delivered pages it covers: the first covers those before any append. */
export function holdsOf(row: { holdId: string; limit: number; extraHolds: AppendedHold[] }): PageHold[] {
  const appended = row.extraHolds.reduce((sum, h) => sum + h.pages, 0);
  return [
    { holdId: row.holdId, from: 0, pages: row.limit - appended },
    ...row.extraHolds.map(({ holdId, from, pages }) => ({ holdId, from, pages })),
  ];
}

export interface CrawlRow {
  id: string;
  workspaceId: string;
  /** The gateway's request id of its start: its rendered pages are recorded as sessions of it. */
  requestId: string;
  url: string;
  options: unknown;
  status: CrawlStatus;
  outcome: CrawlOutcome | null;
  holdId: string;
  /** The holds of the pages appended to a batch, after `holdId`'s. */
  extraHolds: AppendedHold[];
  limit: number;
  claimed: number;
  completed: number;
  failed: number;
  skipped: number;
  discovered: number;
  /** Page loads of delivered documents past their first page, billed beside the blocks (decision 0020). */
  documentPages: number;
  /** The start page's sitemaps are still to be read (the crawl cannot end yet). */
  sitemapsPending: boolean;
  createdAt: Date;
  finishedAt: Date | null;
  /** Its webhook wants a `page` event for each page delivered. */
  pageEvents: boolean;
}

const CRAWL_COLUMNS = `id, workspace_id AS "workspaceId", request_id AS "requestId", url, options, status, outcome, hold_id AS "holdId", "limit",
  extra_holds AS "extraHolds", claimed, completed, failed, skipped, discovered, document_pages AS "documentPages",
  sitemaps_pending AS "sitemapsPending", created_at AS "createdAt",
  finished_at AS "finishedAt",
  (webhook IS NOT NULL AND (jsonb_array_length(coalesce(webhook->'events', '[]'::jsonb)) = 0
                            OR webhook->'events' ? 'page')) AS "pageEvents"`;

/** An append found its batch stopped: its transaction is rolled back. */
class BatchEnded extends Error {
  constructor(readonly crawl: CrawlRow) {
    super('the batch has ended');
  }
}

export class CrawlStore {
  constructor(private readonly db: CrawlDatabase) {}

  /** Creates the crawl and its start URL; a retried start (same request id) returns the first one. */
  async create(c: {
    id: string;
    workspaceId: string;
    requestId: string;
    start: NewUrl;
    /** A batch's other pages, beside its first (`start`). */
    more?: NewUrl[];
    options: unknown;
    holdId: string;
    limit: number;
    deadlineAt: Date;
    /** The crawl reads its start page's sitemaps (added after that page is delivered). */
    sitemapsPending: boolean;
    /** Where its events are posted, sealed (keepWebhook); `started` is queued with the crawl. */
    webhook?: KeptWebhook;
  }): Promise<{ crawl: CrawlRow; created: boolean; webhook?: KeptWebhook }> {
    const secret = `webhook AS "keptWebhook"`;
    return this.db.transaction(async (tx) => {
      const inserted = await firstRow<CrawlRow & { keptWebhook: KeptWebhook | null }>(
        tx,
        `INSERT INTO crawls (id, workspace_id, request_id, url, options, hold_id, "limit", discovered, deadline_at,
                             sitemaps_pending, webhook)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $10, $8, $9, $11)
         ON CONFLICT (workspace_id, request_id) DO NOTHING RETURNING ${CRAWL_COLUMNS}, ${secret}`,
        [
          c.id,
          c.workspaceId,
          c.requestId,
          c.start.url,
          JSON.stringify(c.options),
          c.holdId,
          c.limit,
          c.deadlineAt,
          c.sitemapsPending,
          1 + (c.more?.length ?? 0),
          c.webhook ? JSON.stringify(c.webhook) : null,
        ],
      );
      if (!inserted) {
        const first = await firstRow<CrawlRow & { keptWebhook: KeptWebhook | null }>(
          tx,
          `SELECT ${CRAWL_COLUMNS}, ${secret} FROM crawls WHERE workspace_id = $1 AND request_id = $2`,
          [c.workspaceId, c.requestId],
        );
        if (!first) throw new Error('crawl vanished during an idempotent start');
        const { keptWebhook, ...crawl } = first;
        return { crawl, created: false, ...(keptWebhook && { webhook: keptWebhook }) };
      }
      const all = [c.start, ...(c.more ?? [])];
      await tx.query(
        `INSERT INTO crawl_urls (crawl_id, url_key, url, host, depth)
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::int[])`,
        [c.id, all.map((u) => u.key), all.map((u) => u.url), all.map((u) => u.host), all.map((u) => u.depth)],
      );
      await queueWebhook(tx, c.id, 'started', { success: true });
      const { keptWebhook, ...crawl } = inserted;
      return { crawl, created: true, ...(keptWebhook && { webhook: keptWebhook }) };
    });
  }

  /**
   * Adds pages to a running batch of the workspace (`appendToId`) with the hold that pays for
   * them: the new URLs (those the batch lacks) pending, its `limit` and `discovered` grown by
   * their number, the hold recorded as covering them. URL rows first, then the batch's row, as
   * every step locks; a batch closed meanwhile answers how it stands and nothing is added. A
   * retried append (the same request) adds nothing again and answers its first `fresh`.
   */
  async append(a: {
    workspaceId: string;
    crawlId: string;
    requestId: string;
    holdId: string;
    urls: NewUrl[];
  }): Promise<
    | { state: 'appended'; crawl: CrawlRow; fresh: NewUrl[] }
    | { state: 'retried'; crawl: CrawlRow }
    | { state: 'missing' }
    | { state: 'ended'; crawl: CrawlRow }
  > {
    const appending = this.db.transaction(async (tx) => {
      const sorted = [...a.urls].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
      const { rows: inserted } = await tx.query<{ key: string }>(
        `INSERT INTO crawl_urls (crawl_id, url_key, url, host, depth)
         SELECT c.id, u.key, u.url, u.host, 0
           FROM unnest($2::text[], $3::text[], $4::text[]) AS u(key, url, host)
           JOIN crawls c ON c.id = $1 AND c.workspace_id = $5
         ON CONFLICT DO NOTHING RETURNING url_key AS key`,
        [a.crawlId, sorted.map((u) => u.key), sorted.map((u) => u.url), sorted.map((u) => u.host), a.workspaceId],
      );
      const crawl = await firstRow<CrawlRow & { closed: boolean }>(
        tx,
        `SELECT ${CRAWL_COLUMNS}, closed_at IS NOT NULL AS closed FROM crawls
          WHERE id = $1 AND workspace_id = $2 FOR UPDATE`,
        [a.crawlId, a.workspaceId],
      );
      if (!crawl) return { state: 'missing' as const };
      const { closed, ...row } = crawl;
      // Its URLs went in with the first try: this one inserted none.
      if (row.extraHolds.some((h) => h.requestId === a.requestId)) return { state: 'retried' as const, crawl: row };
      // Thrown, so the URLs inserted above are rolled back with it.
      if (row.status !== 'running' || closed) throw new BatchEnded(row);
      const keys = new Set(inserted.map((r) => r.key));
      const fresh = a.urls.filter((u) => keys.has(u.key));
      if (fresh.length === 0) return { state: 'appended' as const, crawl: row, fresh };
      const hold: AppendedHold = { requestId: a.requestId, holdId: a.holdId, from: row.limit, pages: fresh.length };
      const grown = await firstRow<CrawlRow>(
        tx,
        `UPDATE crawls SET "limit" = "limit" + $2, discovered = discovered + $2,
                extra_holds = extra_holds || jsonb_build_array($3::jsonb)
          WHERE id = $1 RETURNING ${CRAWL_COLUMNS}`,
        [a.crawlId, fresh.length, JSON.stringify(hold)],
      );
      return { state: 'appended' as const, crawl: grown ?? row, fresh };
    });
    return appending.catch((err: unknown) => {
      if (err instanceof BatchEnded) return { state: 'ended' as const, crawl: err.crawl };
      throw err;
    });
  }

  /** A crawl of this workspace; another workspace's crawl is not found, exactly as a missing one. */
  get(workspaceId: string, id: string): Promise<CrawlRow | undefined> {
    return firstRow<CrawlRow>(this.db.pool, `SELECT ${CRAWL_COLUMNS} FROM crawls WHERE id = $1 AND workspace_id = $2`, [
      id,
      workspaceId,
    ]);
  }

  /** The workspace's running (or cancelled, still finishing) crawls, newest first. */
  async running(workspaceId: string, most: number): Promise<CrawlRow[]> {
    const { rows } = await this.db.pool.query<CrawlRow>(
      `SELECT ${CRAWL_COLUMNS} FROM crawls WHERE workspace_id = $1 AND status <> 'settled'
        ORDER BY created_at DESC LIMIT $2`,
      [workspaceId, most],
    );
    return rows;
  }

  /** The crawl row by id alone (workers know crawls by id; the gateway always adds the workspace). */
  crawl(id: string): Promise<CrawlRow | undefined> {
    return firstRow<CrawlRow>(this.db.pool, `SELECT ${CRAWL_COLUMNS} FROM crawls WHERE id = $1`, [id]);
  }

  /** Stops a running crawl (nothing new is taken; pages in flight finish); false when this workspace has no such crawl. */
  async cancel(workspaceId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.db.pool.query(
      `UPDATE crawls SET status = CASE WHEN status = 'running' AND closed_at IS NULL THEN 'cancelled' ELSE status END
        WHERE id = $1 AND workspace_id = $2`,
      [id, workspaceId],
    );
    return rowCount === 1;
  }

  /**
   * How the crawl would end now, if it can: a running crawl ends when its
   * limit is delivered or nothing is left to fetch (failed when it delivered
   * nothing and a page failed: the start page, whose failure ends it), and expires past its
   * deadline or after `stallMs` without a page delivered or failed; a
   * cancelled one ends when no page is in flight; a closed one (its ending
   * cut short) as it was closed. Undefined while it must go on.
   */
  async endingOf(
    crawlId: string,
    { stallMs = 0 }: { stallMs?: number } = {},
  ): Promise<{ outcome: CrawlOutcome; holds: PageHold[]; workspaceId: string } | undefined> {
    // Every URL row is pending, fetching, or counted once in completed, failed or skipped:
    // what is still open is a difference of counters, not a count of rows.
    const row = await firstRow<{
      status: CrawlStatus;
      outcome: CrawlOutcome | null;
      workspaceId: string;
      closed: boolean;
      completed: number;
      failed: number;
      limit: number;
      holdId: string;
      extraHolds: AppendedHold[];
      open: number;
      live: number;
      expired: boolean;
      batch: boolean;
    }>(
      this.db.pool,
      `SELECT status, outcome, workspace_id AS "workspaceId", closed_at IS NOT NULL AS closed, completed, failed, "limit", hold_id AS "holdId",
          extra_holds AS "extraHolds",
          (deadline_at < now()
            OR ($2::double precision > 0 AND progress_at < now() - make_interval(secs => $2::double precision / 1000)))
            AS expired,
          discovered - completed - failed - skipped + sitemaps_pending::int AS open,
          coalesce((options->>'batch')::boolean, false) AS batch,
          CASE WHEN status = 'cancelled' AND closed_at IS NULL THEN
            (SELECT count(*)::int FROM crawl_urls u
              WHERE u.crawl_id = c.id AND u.state = 'fetching' AND u.lease_until > now()) ELSE 0 END AS live
         FROM crawls c WHERE id = $1`,
      [crawlId, stallMs],
    );
    if (!row || row.status === 'settled') return undefined;
    const ending = (outcome: CrawlOutcome) => ({ outcome, holds: holdsOf(row), workspaceId: row.workspaceId });
    if (row.closed && row.outcome) return ending(row.outcome);
    if (row.status === 'cancelled') return row.live === 0 ? ending('cancelled') : undefined;
    // A batch's limit is its page count: it ends when nothing is left, as completed.
    if (row.completed >= row.limit && !row.batch) return ending('limit_reached');
    if (row.open === 0) return ending(row.completed === 0 && row.failed > 0 ? 'failed' : 'completed');
    if (row.expired) return ending('expired');
    return undefined;
  }

  /**
   * Closes the crawl: what was never fetched is counted as skipped, a page
   * still in flight can no longer be delivered, and nothing new is added, so
   * `completed` is final. Answers with it, the outcome the crawl was closed
   * with (a second close keeps the first) and whether this call closed it;
   * undefined once settled (or when a batch was appended to since its ending was read). Locks as every step does: URL rows (in key
   * order), then the crawl row.
   */
  async close(
    crawlId: string,
    outcome: CrawlOutcome,
  ): Promise<{ completed: number; outcome: CrawlOutcome; closedNow: boolean } | undefined> {
    return this.db.transaction(async (tx) => {
      // Counted, not returned: a cancelled crawl may have tens of thousands of URLs left.
      await tx.query(
        `SELECT count(*) FROM (SELECT 1 FROM crawl_urls WHERE crawl_id = $1 AND state IN ('pending', 'fetching')
                                ORDER BY url_key FOR UPDATE) locked`,
        [crawlId],
      );
      // Under the crawl row's lock `completed` cannot move (a delivery counts there).
      const row = await firstRow<{
        closed: boolean;
        completed: number;
        outcome: CrawlOutcome | null;
        appendedSince: boolean;
      }>(
        tx,
        `SELECT closed_at IS NOT NULL AS closed, completed, outcome,
                coalesce((options->>'batch')::boolean, false) AND discovered - completed - failed - skipped > 0
                  AS "appendedSince"
           FROM crawls WHERE id = $1 AND status <> 'settled' FOR UPDATE`,
        [crawlId],
      );
      if (!row) return undefined;
      if (row.closed) return { completed: row.completed, outcome: row.outcome ?? outcome, closedNow: false };
      // A batch found with nothing left whose pages were appended to since goes on: its new pages end it.
      if (outcome === 'completed' && row.appendedSince) return undefined;
      // A statement of its own: it sees URLs committed since the rows above were locked.
      const { rowCount } = await tx.query(
        `UPDATE crawl_urls SET state = 'skipped', lease_until = NULL, download_until = NULL
          WHERE crawl_id = $1 AND state IN ('pending', 'fetching')`,
        [crawlId],
      );
      await tx.query(
        `UPDATE crawls SET outcome = $2, closed_at = now(), skipped = skipped + $3, claimed = completed,
                sitemaps_pending = false
          WHERE id = $1`,
        [crawlId, outcome, rowCount ?? 0],
      );
      await queueWebhook(tx, crawlId, ENDED[outcome] ? 'completed' : 'failed', {
        success: ENDED[outcome],
        ...(!ENDED[outcome] && { error: `The crawl ended ${outcome}.` }),
      });
      return { completed: row.completed, outcome, closedNow: true };
    });
  }

  /** Counts the further pages of a delivered document once they are billed (settled or closed alike). */
  async addDocumentPages(crawlId: string, pages: number): Promise<void> {
    await this.db.pool.query('UPDATE crawls SET document_pages = document_pages + $2 WHERE id = $1', [crawlId, pages]);
  }

  /** Marks a closed crawl settled (billed, its hold voided); false when it already was. */
  async settle(crawlId: string): Promise<boolean> {
    const done = await firstRow(
      this.db.pool,
      `UPDATE crawls SET status = 'settled', finished_at = now()
        WHERE id = $1 AND status <> 'settled' AND closed_at IS NOT NULL RETURNING 1`,
      [crawlId],
    );
    return done !== undefined;
  }

  /** Deletes crawls settled before `before`, with their URLs, pages and failures; returns how many. */
  async purgeSettledBefore(before: Date, max: number): Promise<number> {
    const { rowCount } = await this.db.pool.query(
      `DELETE FROM crawls WHERE id IN (
         SELECT id FROM crawls WHERE status = 'settled' AND finished_at < $1 ORDER BY finished_at LIMIT $2)`,
      [before, max],
    );
    return rowCount ?? 0;
  }

  /**
   * Crawls a sweeper should look at: unsettled ones past their deadline,
   * without progress for `stallMs` (they end), or without progress nor a
   * requeue for `idleMs` (their messages may be lost).
   */
  async stale(idleMs: number, max: number, stallMs = 0): Promise<string[]> {
    const { rows } = await this.db.pool.query(
      `SELECT id FROM crawls WHERE status <> 'settled'
          AND (deadline_at < now()
            OR greatest(progress_at, requeued_at) < now() - make_interval(secs => $1::double precision / 1000)
            OR ($3::double precision > 0 AND progress_at < now() - make_interval(secs => $3::double precision / 1000)))
        ORDER BY greatest(progress_at, requeued_at) LIMIT $2`,
      [idleMs, max, stallMs],
    );
    return (rows as { id: string }[]).map((r) => r.id);
  }
}
