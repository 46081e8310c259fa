// What a crawl's pages came to, as read back: the documents delivered
// (crawl_pages, written by the delivery: deliveries.ts) and the pages that
// failed (crawl_failures, written as a URL fails: urls.ts).
import type { CrawlDatabase } from './database.js';

export class PageStore {
  constructor(private readonly db: CrawlDatabase) {}

  /** Delivered pages after `afterSeq`, oldest first, at most `count` of them and about `maxBytes`. */
  async delivered(crawlId: string, afterSeq: number, count: number, maxBytes: number) {
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

  /** The pages that failed, oldest first, at most `max` of them, with their codes. */
  async failures(crawlId: string, max: number) {
    const { rows } = await this.db.pool.query(
      `SELECT url, code, details FROM crawl_failures WHERE crawl_id = $1 ORDER BY created_at, url_key LIMIT $2`,
      [crawlId, max],
    );
    return rows as { url: string; code: string; details: Record<string, unknown> | null }[];
  }
}
