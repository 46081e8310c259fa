// Which credits a charge uses first. The rule (docs/billing.md): whatever lapses
// first is spent first, because a credit that lapses unused is lost to the user.
// The monthly allowance lapses at the period end, so it goes first unless a
// grant lapses sooner; at the same instant the allowance goes before a grant;
// grants that never lapse (purchased credits) go last, oldest first.
// The ledger_draw SQL function applies this order under the account lock;
// this module states it for the unit tests and the model-based test.

export interface Source {
  /** null for the monthly allowance. */
  grantId: string | null;
  /** null: never lapses. */
  lapsesAt: Date | null;
  createdAt: Date;
  remaining: bigint;
}

export interface Draw {
  grantId: string | null;
  amount: bigint;
}

// Postgres orders uuids bytewise, which for lower-case hex is code-unit order.
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const lapseKey = (s: Source) => s.lapsesAt?.getTime() ?? Number.POSITIVE_INFINITY;

export function compareSpendingOrder(a: Source, b: Source): number {
  return (
    lapseKey(a) - lapseKey(b) ||
    (a.grantId === null ? 0 : 1) - (b.grantId === null ? 0 : 1) ||
    a.createdAt.getTime() - b.createdAt.getTime() ||
    byCodeUnit(a.grantId ?? '', b.grantId ?? '')
  );
}

/** The sources still usable at `now`, in the order they are spent. */
export function spendingOrder(sources: readonly Source[], now: Date): Source[] {
  return sources
    .filter((s) => s.remaining > 0n && (s.lapsesAt === null || s.lapsesAt.getTime() > now.getTime()))
    .sort(compareSpendingOrder);
}

/** Draws up to `amount` in spending order; the draws may sum to less when the sources run out. */
export function allocate(sources: readonly Source[], amount: bigint, now: Date): Draw[] {
  const draws: Draw[] = [];
  let left = amount;
  for (const source of spendingOrder(sources, now)) {
    if (left === 0n) break;
    // Not Math.min: these are bigints.
    let take = left;
    if (source.remaining < take) take = source.remaining;
    draws.push({ grantId: source.grantId, amount: take });
    left -= take;
  }
  return draws;
}
