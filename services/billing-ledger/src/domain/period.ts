// The allowance period: the calendar month in UTC. Every account renews at the
// same instant, so "when does it reset" has one answer and needs no anchor.

/** The service's clock: passed into every SQL function, so tests can move time. */
export type Clock = () => Date;

export interface Period {
  start: Date;
  end: Date;
}

export function allowancePeriod(now: Date): Period {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  return { start: new Date(Date.UTC(year, month, 1)), end: new Date(Date.UTC(year, month + 1, 1)) };
}
