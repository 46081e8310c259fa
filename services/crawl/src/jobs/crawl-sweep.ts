// Crawls that stopped moving (a lost message, a worker gone with its lease)
// are queued again, and settled as expired past their deadline or after
// CRAWL_STALL without progress; settled crawls past their retention are
// deleted. Every replica sweeps; the stores keep it safe (docs/crawl.md).
import type { Logger } from '@wap/log';
import { PeriodicJob } from '@wap/service';
import type { CrawlStore } from '../store/crawls.js';
import type { UrlStore } from '../store/urls.js';
import type { CrawlWorker } from './crawl-worker.js';
import type { Frontier } from './frontier.js';

export interface CrawlSweepSettings {
  intervalMs: number;
  /** A crawl with no page done for this long is looked at. */
  idleMs: number;
  /** A crawl with no progress for this long ends as expired. */
  stallMs: number;
  /** Settled crawls are deleted this long after they settled. */
  retentionMs: number;
}

export interface SweepRound {
  purged: number;
  looked: number;
  requeued: number;
}

/** One round; a crawl that fails here (its ledger call, say) does not hold up the others. */
export async function sweepCrawls(
  deps: { crawls: CrawlStore; urls: UrlStore; worker: CrawlWorker; frontier: Frontier; log: Logger },
  settings: Omit<CrawlSweepSettings, 'intervalMs'>,
  now = Date.now(),
): Promise<SweepRound> {
  const { crawls, urls, worker, frontier, log } = deps;
  const purged = await crawls.purgeSettledBefore(new Date(now - settings.retentionMs), 100);
  if (purged > 0) log.info({ crawls: purged }, 'settled crawls past their retention deleted');
  const stale = await crawls.stale(settings.idleMs, 20, settings.stallMs);
  let requeued = 0;
  for (const id of stale) {
    try {
      await worker.finishIfDone(id, { resume: true });
      const pending = await urls.requeue(id);
      if (pending.length > 0) {
        log.warn({ crawlId: id, urls: pending.length }, 'crawl made no progress; queueing its pending URLs again');
        await frontier.publish(id, pending, `:r${now}`);
        requeued += pending.length;
      }
    } catch (err) {
      log.warn({ err, crawlId: id }, 'crawl sweep failed for this crawl');
    }
  }
  return { purged, looked: stale.length, requeued };
}

export const crawlSweeper = (
  deps: Parameters<typeof sweepCrawls>[0],
  { intervalMs, ...settings }: CrawlSweepSettings,
) => new PeriodicJob({ name: 'crawl sweep', intervalMs, log: deps.log }, () => sweepCrawls(deps, settings));
