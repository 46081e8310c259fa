// Idempotency records past their 24 hours are deleted, hourly.
import type { Logger } from '@wap/log';
import { PeriodicJob } from '@wap/service';
import type { IdempotencyStore } from '../store/idempotency.js';

export const idempotencySweeper = (store: IdempotencyStore, log: Logger, intervalMs = 3_600_000) =>
  new PeriodicJob({ name: 'idempotency sweep', intervalMs, log }, () => store.expire());
