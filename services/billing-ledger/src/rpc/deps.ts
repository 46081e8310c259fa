// What every handler is given: the stores and the clock. The clock is the
// service's, passed into every SQL function, so tests can move time.
import { allowancePeriod, type Clock } from '../domain/period.js';
import type { MoneyStore } from '../store/money.js';
import type { ReadStore } from '../store/reads.js';
import type { SlotStore } from '../store/slots.js';

export interface LedgerDeps {
  money: MoneyStore;
  reads: ReadStore;
  slots: SlotStore;
  clock: Clock;
}

export function clocked(clock: Clock) {
  const now = clock();
  return { now, period: allowancePeriod(now) };
}
