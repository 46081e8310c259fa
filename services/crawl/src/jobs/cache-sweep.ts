// Cached pages older than a week are deleted: no `maxAge` wants them. The
// search index keeps its rows; a page's index entry is replaced when it is
// fetched again.
import type { Logger } from '@wap/log';
import { PeriodicJob } from '@wap/service';
import type { PageCache } from '../store/page-cache.js';

export const CACHE_KEEP_MS = 7 * 86_400_000;

export interface CacheSweepSettings {
  intervalMs: number;
  /** Cached pages older than this are deleted. */
  keepMs?: number;
}

export const cacheSweeper = (
  cache: PageCache,
  log: Logger,
  { intervalMs, keepMs = CACHE_KEEP_MS }: CacheSweepSettings,
) => new PeriodicJob({ name: 'page cache sweep', intervalMs, log }, () => cache.expire(keepMs));
