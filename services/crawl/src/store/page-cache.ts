import { createHash } from 'node:crypto';
import type { ExtractResult } from '@wap/extract';
import type { crawl } from '@wap/proto';
import { Batcher } from '@wap/service';
import type { CrawlDatabase } from './database.js';
import { indexFields } from './search-index.js';

/** A page as the cache keeps it: as fetched or rendered, before extraction (the pipeline's RawPage is one). */
export interface CachedPage {
  finalUrl: string;
  status: number;
  html: string;
  contentType: string;
  /** `upload`: a file the caller sent (pipeline/upload.ts), never fetched and never kept here. */
  engine: 'fetch' | 'browser' | 'upload';
}

/** What makes two fetches of a URL the same page. */
export function cacheKey(url: string, options: crawl.ScrapeOptions): string {
  const headers = Object.entries(options.headers).sort(([a], [b]) => a.localeCompare(b));
  return createHash('sha256')
    .update(JSON.stringify([url, options.mobile, headers, options.engine]))
    .digest('hex');
}

/** A scraped page's copies: the workspace's cached page and its search index entry. */
export interface PageWrite {
  workspaceId: string;
  cacheKey: string;
  url: string;
  page: CachedPage;
  extracted: ExtractResult;
}

// Postgres text holds no NUL, and a page may carry one: it must never make a write fail.
const noNul = (s: string) => (s.includes('\u0000') ? s.replaceAll('\u0000', '') : s);

/** Last write wins within a batch, as it would one at a time (ON CONFLICT may touch a row once per statement). */
function lastOf<T>(items: T[], key: (item: T) => string): T[] {
  return [...new Map(items.map((item) => [key(item), item])).values()];
}

/**
 * The page cache (`maxAge`) and the writes of scraped pages. Pages written by
 * concurrent scrapes leave together: one statement upserts every cache row of
 * a batch and puts every page in the search index, so a busy service makes one
 * round trip and one commit per batch rather than two per page.
 */
export class PageCache {
  private readonly writes: Batcher<PageWrite, void>;

  constructor(private readonly db: CrawlDatabase) {
    this.writes = new Batcher((batch) => this.writeBatch(batch), { maxInFlight: 2, maxBatch: 32 });
  }

  async fresh(workspaceId: string, key: string, maxAgeMs: number): Promise<CachedPage | undefined> {
    if (maxAgeMs <= 0) return undefined;
    const { rows } = await this.db.pool.query<{
      final_url: string;
      status: number;
      html: string;
      content_type: string;
      engine: string;
    }>({
      name: 'page_cache_fresh',
      text: `SELECT final_url, status, html, content_type, engine FROM cached_pages
              WHERE workspace_id = $1 AND cache_key = $2 AND fetched_at > $3`,
      // Any maxAge reaches back to 1970 at most (a larger one would overflow a timestamp).
      values: [workspaceId, key, new Date(Math.max(0, Date.now() - maxAgeMs))],
    });
    const row = rows[0];
    if (!row) return undefined;
    return {
      finalUrl: row.final_url,
      status: row.status,
      html: row.html,
      contentType: row.content_type,
      engine: row.engine === 'browser' ? 'browser' : 'fetch',
    };
  }

  /** Keeps a scraped page and indexes it; resolves once both are committed. */
  store(write: PageWrite): Promise<void> {
    return this.writes.call(write);
  }

  private async writeBatch(batch: PageWrite[]): Promise<PromiseSettledResult<void>[]> {
    const cached = lastOf(batch, (w) => `${w.workspaceId} ${w.cacheKey}`);
    const indexed = lastOf(batch, (w) => `${w.workspaceId} ${w.page.finalUrl}`).map((w) => [
      w.workspaceId,
      ...indexFields(w.page.finalUrl, w.extracted),
    ]);
    const column = <T>(rows: T[][], i: number) => rows.map((r) => r[i]);
    await this.db.pool.query({
      name: 'page_writes',
      text: `WITH cached AS (
               INSERT INTO cached_pages (workspace_id, cache_key, url, final_url, status, content_type, html, engine, fetched_at)
               SELECT w, k, u, f, s, t, h, e, now()
                 FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::text[])
                   AS x(w, k, u, f, s, t, h, e)
               ON CONFLICT (workspace_id, cache_key) DO UPDATE
                 SET url = excluded.url, final_url = excluded.final_url, status = excluded.status,
                     content_type = excluded.content_type, html = excluded.html, engine = excluded.engine,
                     fetched_at = excluded.fetched_at
               RETURNING 1),
             indexed AS MATERIALIZED (
               SELECT search_index_put(w, u, t, d, c, l)
                 FROM unnest($9::uuid[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[])
                   AS y(w, u, t, d, c, l))
             SELECT (SELECT count(*) FROM cached) AS cached, (SELECT count(*) FROM indexed) AS indexed`,
      values: [
        cached.map((w) => w.workspaceId),
        cached.map((w) => w.cacheKey),
        cached.map((w) => noNul(w.url)),
        cached.map((w) => noNul(w.page.finalUrl)),
        cached.map((w) => w.page.status),
        cached.map((w) => noNul(w.page.contentType)),
        cached.map((w) => noNul(w.page.html)),
        cached.map((w) => w.page.engine),
        ...[0, 1, 2, 3, 4, 5].map((i) => column(indexed, i)),
      ],
    });
    return batch.map(() => ({ status: 'fulfilled', value: undefined }));
  }

  /** Drops copies no `maxAge` could still want. */
  async expire(olderThanMs: number): Promise<number> {
    const { rowCount } = await this.db.pool.query(
      `DELETE FROM cached_pages WHERE fetched_at < now() - make_interval(secs => $1 / 1000.0)`,
      [olderThanMs],
    );
    return rowCount ?? 0;
  }
}
