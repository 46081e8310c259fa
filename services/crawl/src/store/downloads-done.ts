// Downloads a worker has finished and not yet recorded: each frees its URL's
// place in its host's concurrency (crawl_urls.download_until). They ride with
// the worker's next batch of takes, which are what need the places, or go
// alone after a moment when no take comes. Other workers see a place free that
// much later, which only makes the crawl politer.
import type { CrawlDatabase } from './database.js';

/** A URL whose request to its host is done. */
export interface Download {
  crawlId: string;
  urlKey: string;
}

/** How long a finished download waits for a take to carry it before it is recorded alone. */
const ALONE_MS = 50;

const keyOf = (d: Download) => `${d.crawlId} ${d.urlKey}`;

export class DownloadsDone {
  /** By `crawl key`: a URL downloaded again before it was recorded goes once. */
  private readonly pending = new Map<string, Download>();
  private timer: NodeJS.Timeout | undefined;
  /** Downloads recorded with takes and alone, for the logs. */
  readonly sent = { withTakes: 0, alone: 0 };

  constructor(private readonly db: CrawlDatabase) {}

  /**
   * The URL's request to its host is done. (A delivery frees the place too,
   * but only once it commits: the record still goes with the next takes,
   * which must not wait for it.)
   */
  add(crawlId: string, urlKey: string): void {
    const download = { crawlId, urlKey };
    this.pending.set(keyOf(download), download);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      const alone = this.take();
      if (alone.length === 0) return;
      this.sent.alone += alone.length;
      this.db.pool
        .query('SELECT crawl_downloaded_alone($1::uuid[], $2::text[])', [
          alone.map((d) => d.crawlId),
          alone.map((d) => d.urlKey),
        ])
        .catch(() => undefined); // the places lapse with the leases
    }, ALONE_MS);
    this.timer.unref();
  }

  /**
   * Hands every download not recorded yet to `record` (a batch of takes that
   * records them in its transaction); if it fails they wait for the next.
   */
  async carry<T>(record: (downloads: Download[]) => Promise<T>): Promise<T> {
    const downloads = this.take();
    try {
      const answer = await record(downloads);
      this.sent.withTakes += downloads.length;
      return answer;
    } catch (err) {
      for (const d of downloads) this.pending.set(keyOf(d), d);
      throw err;
    }
  }

  private take(): Download[] {
    const all = [...this.pending.values()];
    this.pending.clear();
    return all;
  }
}
