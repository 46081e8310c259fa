// Marks expired holds and deletes lapsed slot leases in the background. Reads
// already treat both as gone, so the sweep only keeps the tables honest and
// the live-hold index small. Every replica runs one; SKIP LOCKED shares the work.
import type { Logger } from '@wap/log';
import { PeriodicJob } from '@wap/service';
import type { Clock } from '../domain/period.js';
import type { MoneyStore } from '../store/money.js';

const BATCH = 500;

/** Sweeps until a batch comes back short; answers how many rows it changed. */
export async function sweepHolds(money: MoneyStore, clock: Clock): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await money.sweep(clock(), BATCH);
    total += done;
    if (done < BATCH) return total;
  }
}

export const holdSweeper = (money: MoneyStore, clock: Clock, log: Logger, intervalMs: number) =>
  new PeriodicJob({ name: 'hold sweep', intervalMs, log }, () => sweepHolds(money, clock));
