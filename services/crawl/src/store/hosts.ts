// The hosts of each crawl (crawl_hosts): robots.txt as the first worker to
// ask read it, and the gap between requests. When a host is next due, and the
// places in use on it, move with the takes and deliveries (urls.ts).
import { type CrawlDatabase, firstRow } from './database.js';

export class HostStore {
  constructor(private readonly db: CrawlDatabase) {}

  /** Records a host's robots.txt and politeness gap; the first worker to ask wins. */
  async ensureHost(crawlId: string, host: string, robots: string | null, gapMs: number): Promise<void> {
    await this.db.pool.query(
      `INSERT INTO crawl_hosts (crawl_id, host, gap_ms, robots) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [crawlId, host, gapMs, robots],
    );
  }

  /** The host's robots.txt as recorded (null: none, or ignored); undefined before a worker recorded the host. */
  hostRobots(crawlId: string, host: string) {
    return firstRow<{ robots: string | null }>(
      this.db.pool,
      `SELECT robots FROM crawl_hosts WHERE crawl_id = $1 AND host = $2`,
      [crawlId, host],
    );
  }
}
