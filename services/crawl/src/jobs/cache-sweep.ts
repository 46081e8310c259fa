// Cached pages (and their search-index rows) older than a week are deleted, hourly.
import type { Logger } from '@wap/log';
import { PeriodicJob } from '@wap/service';
import type { PageCache } from '../store/page-cache.js';

export const CACHE_KEEP_MS = 7 * 86_400_000;

export const cacheSweeper = (cache: PageCache, log: Logger, intervalMs = 3_600_000, keepMs = CACHE_KEEP_MS) =>
  new PeriodicJob({ name: 'page cache sweep', intervalMs, log }, () => cache.expire(keepMs));
