// The crawl's state in Postgres. Every step a worker takes is one short
// transaction; locks are always taken URL row first, then host row, then the
// crawl row, so two workers never wait on each other in a circle.
import type { PoolClient } from 'pg';
import type { CrawlDatabase } from '../store/database.js';

export type CrawlStatus = 'running' | 'cancelled' | 'settled';
export type CrawlOutcome = 'completed' | 'limit_reached' | 'cancelled' | 'expired';

export interface CrawlRow {
  id: string;
  workspaceId: string;
  url: string;
  options: unknown;
  status: CrawlStatus;
  outcome: CrawlOutcome | null;
  holdId: string;
  limit: number;
  claimed: number;
  completed: number;
  failed: number;
  skipped: number;
  discovered: number;
  createdAt: Date;
  finishedAt: Date | null;
}

const CRAWL_COLUMNS = `id, workspace_id AS "workspaceId", url, options, status, outcome, hold_id AS "holdId", "limit",
  claimed, completed, failed, skipped, discovered, created_at AS "createdAt", finished_at AS "finishedAt"`;

export interface NewUrl {
  key: string;
  url: string;
  host: string;
  depth: number;
}

/** What a worker may do with a URL it was handed. */
export type Take =
  | { kind: 'gone' } // no such crawl or URL: drop the message
  | { kind: 'finished'; state: 'done' | 'failed' | 'skipped' } // already handled
  | { kind: 'stopped' } // the crawl is no longer running
  | { kind: 'wait'; ms: number } // not now: politeness, the limit or another worker's lease
  | { kind: 'needs-host'; host: string; url: string; crawl: CrawlRow }
  | { kind: 'skip'; reason: 'robots' | 'limit' }
  | { kind: 'fetch'; url: string; depth: number; host: string; crawl: CrawlRow };

/** Per-crawl settings, read from the crawl row the take loaded. */
export interface TakeSettings {
  maxPerHost(crawl: CrawlRow): number;
  leaseMs(crawl: CrawlRow): number;
  allowedByRobots(crawl: CrawlRow, host: string, robots: string | null, url: string): boolean;
}

async function one<T>(client: PoolClient | CrawlDatabase['pool'], sql: string, values: unknown[]) {
  const { rows } = await client.query(sql, values);
  return rows[0] as T | undefined;
}

/** Moves a URL out of `fetching`; false when it was not (another worker finished it, or the crawl settled). */
async function leaveFetching(tx: PoolClient, crawlId: string, urlKey: string, state: 'done' | 'failed' | 'pending') {
  const { rowCount } = await tx.query(
    `UPDATE crawl_urls SET state = $3, lease_until = NULL WHERE crawl_id = $1 AND url_key = $2 AND state = 'fetching'`,
    [crawlId, urlKey, state],
  );
  return rowCount === 1;
}

export class CrawlStore {
  constructor(private readonly db: CrawlDatabase) {}

  /** Creates the crawl and its start URL; a retried start (same request id) returns the first one. */
  async create(c: {
    id: string;
    workspaceId: string;
    requestId: string;
    start: NewUrl;
    options: unknown;
    holdId: string;
    limit: number;
    deadlineAt: Date;
  }): Promise<{ crawl: CrawlRow; created: boolean }> {
    return this.db.transaction(async (tx) => {
      const inserted = await one<CrawlRow>(
        tx,
        `INSERT INTO crawls (id, workspace_id, request_id, url, options, hold_id, "limit", discovered, deadline_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8)
         ON CONFLICT (workspace_id, request_id) DO NOTHING RETURNING ${CRAWL_COLUMNS}`,
        [c.id, c.workspaceId, c.requestId, c.start.url, JSON.stringify(c.options), c.holdId, c.limit, c.deadlineAt],
      );
      if (!inserted) {
        const first = await one<CrawlRow>(
          tx,
          `SELECT ${CRAWL_COLUMNS} FROM crawls WHERE workspace_id = $1 AND request_id = $2`,
          [c.workspaceId, c.requestId],
        );
        if (!first) throw new Error('crawl vanished during an idempotent start');
        return { crawl: first, created: false };
      }
      await tx.query(`INSERT INTO crawl_urls (crawl_id, url_key, url, host, depth) VALUES ($1, $2, $3, $4, $5)`, [
        c.id,
        c.start.key,
        c.start.url,
        c.start.host,
        c.start.depth,
      ]);
      return { crawl: inserted, created: true };
    });
  }

  /** A crawl of this workspace; another workspace's crawl is not found, exactly as a missing one. */
  get(workspaceId: string, id: string): Promise<CrawlRow | undefined> {
    return one<CrawlRow>(this.db.pool, `SELECT ${CRAWL_COLUMNS} FROM crawls WHERE id = $1 AND workspace_id = $2`, [
      id,
      workspaceId,
    ]);
  }

  async failures(crawlId: string, max: number) {
    const { rows } = await this.db.pool.query(
      `SELECT url, code, details FROM crawl_failures WHERE crawl_id = $1 ORDER BY created_at, url_key LIMIT $2`,
      [crawlId, max],
    );
    return rows as { url: string; code: string; details: Record<string, unknown> | null }[];
  }

  /** Delivered pages after `afterSeq`, oldest first, at most `count` of them and about `maxBytes`. */
  async pages(crawlId: string, afterSeq: number, count: number, maxBytes: number) {
    const { rows } = await this.db.pool.query(
      `SELECT seq, depth, document FROM crawl_pages WHERE crawl_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [crawlId, afterSeq, count],
    );
    const out: { seq: number; depth: number; document: Buffer }[] = [];
    let bytes = 0;
    for (const row of rows as { seq: number; depth: number; document: Buffer }[]) {
      if (out.length > 0 && bytes + row.document.length > maxBytes) break;
      bytes += row.document.length;
      out.push(row);
    }
    return out;
  }

  /** Records a host's robots.txt and politeness gap; the first worker to ask wins. */
  async ensureHost(crawlId: string, host: string, robots: string | null, gapMs: number): Promise<void> {
    await this.db.pool.query(
      `INSERT INTO crawl_hosts (crawl_id, host, gap_ms, robots) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [crawlId, host, gapMs, robots],
    );
  }

  hostRobots(crawlId: string, host: string) {
    return one<{ robots: string | null }>(
      this.db.pool,
      `SELECT robots FROM crawl_hosts WHERE crawl_id = $1 AND host = $2`,
      [crawlId, host],
    );
  }

  /**
   * Decides, in one transaction, whether this worker fetches the URL now: the
   * crawl runs, no other worker holds a live lease on it, robots.txt allows
   * it, the host is due and has room, and the crawl's limit has room. On
   * success the URL is leased and counted in `claimed`.
   */
  take(crawlId: string, urlKey: string, settings: TakeSettings): Promise<Take> {
    return this.db.transaction(async (tx): Promise<Take> => {
      const url = await one<{
        url: string;
        host: string;
        depth: number;
        state: string;
        leaseMs: number | null;
      }>(
        tx,
        `SELECT url, host, depth, state, (extract(epoch FROM lease_until - now()) * 1000)::int AS "leaseMs"
           FROM crawl_urls WHERE crawl_id = $1 AND url_key = $2 FOR UPDATE`,
        [crawlId, urlKey],
      );
      if (!url) return { kind: 'gone' };
      if (url.state === 'done' || url.state === 'failed' || url.state === 'skipped') {
        return { kind: 'finished', state: url.state };
      }
      const leased = url.state === 'fetching' && (url.leaseMs ?? 0) > 0;
      if (leased) return { kind: 'wait', ms: Math.min(url.leaseMs ?? 1000, 30_000) };
      // A fetching URL whose lease ran out was taken by a worker that died: its claim still counts.
      const takeover = url.state === 'fetching';
      const crawl = await one<CrawlRow>(tx, `SELECT ${CRAWL_COLUMNS} FROM crawls WHERE id = $1`, [crawlId]);
      if (!crawl) return { kind: 'gone' };
      if (crawl.status !== 'running') {
        await this.skipIn(tx, crawlId, urlKey, takeover);
        return { kind: 'stopped' };
      }
      const host = await one<{ robots: string | null; waitMs: number }>(
        tx,
        `SELECT robots, greatest(0, extract(epoch FROM next_at - now()) * 1000)::int AS "waitMs"
           FROM crawl_hosts WHERE crawl_id = $1 AND host = $2 FOR UPDATE`,
        [crawlId, url.host],
      );
      if (!host) return { kind: 'needs-host', host: url.host, url: url.url, crawl };
      if (!settings.allowedByRobots(crawl, url.host, host.robots, url.url)) {
        await this.skipIn(tx, crawlId, urlKey, takeover);
        return { kind: 'skip', reason: 'robots' };
      }
      if (host.waitMs > 0) return { kind: 'wait', ms: host.waitMs };
      const busy = await one<{ n: number }>(
        tx,
        `SELECT count(*)::int AS n FROM crawl_urls
          WHERE crawl_id = $1 AND host = $2 AND state = 'fetching' AND lease_until > now()`,
        [crawlId, url.host],
      );
      if ((busy?.n ?? 0) >= settings.maxPerHost(crawl)) return { kind: 'wait', ms: 100 };
      if (!takeover) {
        const claimed = await one<{ claimed: number }>(
          tx,
          `UPDATE crawls SET claimed = claimed + 1 WHERE id = $1 AND claimed < "limit" RETURNING claimed`,
          [crawlId],
        );
        if (!claimed) {
          // Pages in flight may still fail and give their claim back: wait for them.
          if (crawl.completed < crawl.limit) return { kind: 'wait', ms: 250 };
          await this.skipIn(tx, crawlId, urlKey, false);
          return { kind: 'skip', reason: 'limit' };
        }
      }
      await tx.query(
        `UPDATE crawl_urls SET state = 'fetching', lease_until = now() + make_interval(secs => $3::double precision / 1000)
          WHERE crawl_id = $1 AND url_key = $2`,
        [crawlId, urlKey, settings.leaseMs(crawl)],
      );
      await tx.query(
        `UPDATE crawl_hosts SET next_at = now() + make_interval(secs => gap_ms::double precision / 1000)
          WHERE crawl_id = $1 AND host = $2`,
        [crawlId, url.host],
      );
      return { kind: 'fetch', url: url.url, depth: url.depth, host: url.host, crawl };
    });
  }

  private async skipIn(tx: PoolClient, crawlId: string, urlKey: string, heldClaim: boolean) {
    await tx.query(`UPDATE crawl_urls SET state = 'skipped', lease_until = NULL WHERE crawl_id = $1 AND url_key = $2`, [
      crawlId,
      urlKey,
    ]);
    await tx.query(`UPDATE crawls SET skipped = skipped + 1, claimed = claimed - $2 WHERE id = $1`, [
      crawlId,
      heldClaim ? 1 : 0,
    ]);
  }

  /**
   * Delivers a fetched page: the URL is done, its new links are queued, and
   * the page takes the next `seq` under the crawl row's lock (so pages commit
   * in `seq` order). Returns the links to publish, or undefined when another
   * worker already delivered this URL.
   */
  deliver(
    crawlId: string,
    urlKey: string,
    page: { depth: number; document: Uint8Array },
    links: NewUrl[],
  ): Promise<{ seq: number; queued: NewUrl[] } | undefined> {
    return this.db.transaction(async (tx) => {
      const mine = await leaveFetching(tx, crawlId, urlKey, 'done');
      if (!mine) return undefined;
      const queued = await this.insertUrls(tx, crawlId, urlKey, links);
      const row = await one<{ completed: number }>(
        tx,
        `UPDATE crawls SET completed = completed + 1, discovered = discovered + $2, progress_at = now()
          WHERE id = $1 RETURNING completed`,
        [crawlId, queued.length],
      );
      const seq = row?.completed ?? 0;
      await tx.query(`INSERT INTO crawl_pages (crawl_id, seq, url_key, depth, document) VALUES ($1, $2, $3, $4, $5)`, [
        crawlId,
        seq,
        urlKey,
        page.depth,
        Buffer.from(page.document),
      ]);
      return { seq, queued };
    });
  }

  /** Adds URLs found by `parentKey` (links, or the sitemap for the start page); returns the new ones. */
  private async insertUrls(tx: PoolClient, crawlId: string, parentKey: string, found: NewUrl[]): Promise<NewUrl[]> {
    if (found.length === 0) return [];
    // Known URLs are filtered before the insert, so it never waits on a row another
    // delivery is updating (two pages linking to each other would deadlock); new
    // ones go in one order, so two pages finding the same links wait, not deadlock.
    const links = [...found].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const { rows } = await tx.query(
      `INSERT INTO crawl_urls (crawl_id, url_key, url, host, depth, parent_key)
       SELECT $1, k, u, h, d, $2 FROM unnest($3::text[], $4::text[], $5::text[], $6::int[]) AS t(k, u, h, d)
        WHERE NOT EXISTS (SELECT 1 FROM crawl_urls x WHERE x.crawl_id = $1 AND x.url_key = t.k)
       ON CONFLICT DO NOTHING RETURNING url_key`,
      [
        crawlId,
        parentKey,
        links.map((l) => l.key),
        links.map((l) => l.url),
        links.map((l) => l.host),
        links.map((l) => l.depth),
      ],
    );
    const fresh = new Set((rows as { url_key: string }[]).map((r) => r.url_key));
    return links.filter((l) => fresh.has(l.key));
  }

  /** The still-pending URLs a delivered page found, to publish again after a worker died before publishing. */
  async pendingChildren(crawlId: string, parentKey: string): Promise<string[]> {
    const { rows } = await this.db.pool.query(
      `SELECT url_key FROM crawl_urls WHERE crawl_id = $1 AND parent_key = $2 AND state = 'pending'`,
      [crawlId, parentKey],
    );
    return (rows as { url_key: string }[]).map((r) => r.url_key);
  }

  /** A page that could not be delivered: recorded with its code, its claim given back (never billed). */
  async fail(crawlId: string, urlKey: string, url: string, code: string, details: unknown): Promise<void> {
    await this.db.transaction(async (tx) => {
      const mine = await leaveFetching(tx, crawlId, urlKey, 'failed');
      if (!mine) return;
      await tx.query(
        `INSERT INTO crawl_failures (crawl_id, url_key, url, code, details) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING`,
        [crawlId, urlKey, url, code, details === undefined ? null : JSON.stringify(details)],
      );
      await tx.query(
        `UPDATE crawls SET failed = failed + 1, claimed = claimed - 1, progress_at = now() WHERE id = $1`,
        [crawlId],
      );
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

  /** Puts a URL back to pending after an error that was not the page's fault (ledger or database down). */
  async release(crawlId: string, urlKey: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const mine = await leaveFetching(tx, crawlId, urlKey, 'pending');
      if (mine) await tx.query(`UPDATE crawls SET claimed = claimed - 1 WHERE id = $1`, [crawlId]);
    });
  }

  /** Stops a running crawl: nothing new is taken; pages in flight finish. */
  async cancel(workspaceId: string, id: string): Promise<CrawlRow | undefined> {
    await this.db.pool.query(
      `UPDATE crawls SET status = 'cancelled' WHERE id = $1 AND workspace_id = $2 AND status = 'running'`,
      [id, workspaceId],
    );
    return this.get(workspaceId, id);
  }

  /**
   * How the crawl would end now, if it can: a running crawl ends when its
   * limit is delivered or nothing is left to fetch; a cancelled one when no
   * page is in flight. Undefined while it must go on.
   */
  async endingOf(crawlId: string): Promise<{ outcome: CrawlOutcome; holdId: string } | undefined> {
    const row = await one<{
      status: CrawlStatus;
      completed: number;
      limit: number;
      holdId: string;
      open: number;
      live: number;
      expired: boolean;
    }>(
      this.db.pool,
      `SELECT status, completed, "limit", hold_id AS "holdId", deadline_at < now() AS expired,
          (SELECT count(*)::int FROM crawl_urls u WHERE u.crawl_id = c.id AND u.state IN ('pending', 'fetching')) AS open,
          (SELECT count(*)::int FROM crawl_urls u
             WHERE u.crawl_id = c.id AND u.state = 'fetching' AND u.lease_until > now()) AS live
         FROM crawls c WHERE id = $1`,
      [crawlId],
    );
    if (!row || row.status === 'settled') return undefined;
    if (row.status === 'cancelled') return row.live === 0 ? { outcome: 'cancelled', holdId: row.holdId } : undefined;
    if (row.completed >= row.limit) return { outcome: 'limit_reached', holdId: row.holdId };
    if (row.open === 0) return { outcome: 'completed', holdId: row.holdId };
    if (row.expired) return { outcome: 'expired', holdId: row.holdId };
    return undefined;
  }

  /** Marks the crawl settled (its hold already voided); what was never fetched is counted as skipped. */
  async settle(crawlId: string, outcome: CrawlOutcome): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rowCount } = await tx.query(
        `UPDATE crawl_urls SET state = 'skipped', lease_until = NULL
          WHERE crawl_id = $1 AND state IN ('pending', 'fetching')`,
        [crawlId],
      );
      const done = await one(
        tx,
        `UPDATE crawls SET status = 'settled', outcome = $2, finished_at = now(), skipped = skipped + $3, claimed = completed
          WHERE id = $1 AND status <> 'settled' RETURNING 1`,
        [crawlId, outcome, rowCount ?? 0],
      );
      return done !== undefined;
    });
  }

  /** Crawls a sweeper should look at: unsettled ones past their deadline or without progress for `idleMs`. */
  async stale(idleMs: number, max: number): Promise<string[]> {
    const { rows } = await this.db.pool.query(
      `SELECT id FROM crawls WHERE status <> 'settled'
          AND (deadline_at < now() OR progress_at < now() - make_interval(secs => $1::double precision / 1000))
        ORDER BY progress_at LIMIT $2`,
      [idleMs, max],
    );
    return (rows as { id: string }[]).map((r) => r.id);
  }

  /** The pending URLs of a crawl, to queue again when its messages were lost; marks the crawl as moved. */
  async requeue(crawlId: string): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      await tx.query(`UPDATE crawls SET progress_at = now() WHERE id = $1`, [crawlId]);
      const { rows } = await tx.query(
        `SELECT url_key FROM crawl_urls WHERE crawl_id = $1 AND (state = 'pending' OR (state = 'fetching' AND lease_until < now()))`,
        [crawlId],
      );
      return (rows as { url_key: string }[]).map((r) => r.url_key);
    });
  }
}
