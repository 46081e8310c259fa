// A deliberately simple in-memory ledger for the model-based test: what every
// call on one account should answer, computed without Postgres, locks or SQL.
// It shares only the written rules (pricing, spending order, the calendar
// period) with the service, so a bug in the SQL shows up as a disagreement.
import { allowancePeriod } from '../domain/period.js';
import { allocate, type Source } from '../domain/spending.js';

export interface ModelGrant {
  amount: bigint;
  spent: bigint;
  lapsesAt: Date | null;
  createdAt: Date;
}

export interface ModelHold {
  amount: bigint;
  settled: bigint;
  status: 'active' | 'settled' | 'voided' | 'expired';
  expiresAt: number;
  released: bigint;
}

export type Expected<T> = T | { error: string; needed?: bigint; available?: bigint };

export class ModelAccount {
  allowance: bigint;
  allowanceSpent = 0n;
  private periodStart: number;
  readonly grants = new Map<string, ModelGrant>();
  readonly holds = new Map<string, ModelHold>();
  /** Sums of every first answer to Settle and Charge: what Usage must report. */
  readonly usage = { meters: new Map<string, { quantity: bigint; millicredits: bigint }>(), charged: 0n };

  constructor(
    private readonly monthly: bigint,
    now: Date,
  ) {
    this.allowance = monthly;
    this.periodStart = allowancePeriod(now).start.getTime();
  }

  /** Every money call first moves the allowance into the current month, as ledger_lock_account does. */
  roll(now: Date): void {
    const start = allowancePeriod(now).start.getTime();
    if (start > this.periodStart) {
      this.periodStart = start;
      this.allowance = this.monthly;
      this.allowanceSpent = 0n;
    }
  }

  private live(grant: ModelGrant, now: Date) {
    return grant.lapsesAt === null || grant.lapsesAt.getTime() > now.getTime();
  }

  sourcesLeft(now: Date): bigint {
    let left = this.allowance - this.allowanceSpent;
    for (const g of this.grants.values()) if (this.live(g, now)) left += g.amount - g.spent;
    return left;
  }

  held(now: Date): bigint {
    let held = 0n;
    for (const h of this.holds.values()) {
      if (h.status === 'active' && h.expiresAt > now.getTime()) held += h.amount - h.settled;
    }
    return held;
  }

  available(now: Date): bigint {
    const available = this.sourcesLeft(now) - this.held(now);
    return available > 0n ? available : 0n;
  }

  private draw(amount: bigint, now: Date): bigint {
    const sources: Source[] = [
      {
        grantId: null,
        lapsesAt: allowancePeriod(now).end,
        createdAt: new Date(0),
        remaining: this.allowance - this.allowanceSpent,
      },
      ...[...this.grants.entries()].map(([id, g]) => ({
        grantId: id,
        lapsesAt: g.lapsesAt,
        createdAt: g.createdAt,
        remaining: g.amount - g.spent,
      })),
    ];
    let drawn = 0n;
    for (const d of allocate(sources, amount, now)) {
      if (d.grantId === null) this.allowanceSpent += d.amount;
      else this.grants.get(d.grantId)!.spent += d.amount;
      drawn += d.amount;
    }
    return drawn;
  }

  private record(meters: readonly { meter: string; quantity: bigint; millicredits: bigint }[], charged: bigint) {
    for (const m of meters) {
      const sum = this.usage.meters.get(m.meter) ?? { quantity: 0n, millicredits: 0n };
      sum.quantity += m.quantity;
      sum.millicredits += m.millicredits;
      this.usage.meters.set(m.meter, sum);
    }
    this.usage.charged += charged;
  }

  grant(id: string, amount: bigint, lapsesAt: Date | null, now: Date): void {
    this.roll(now);
    this.grants.set(id, { amount, spent: 0n, lapsesAt, createdAt: now });
  }

  authorize(amount: bigint, now: Date): Expected<{ ok: true }> {
    this.roll(now);
    const available = this.sourcesLeft(now) - this.held(now);
    if (available < amount)
      return { error: 'quota_exceeded', needed: amount, available: available > 0n ? available : 0n };
    return { ok: true };
  }

  addHold(id: string, amount: bigint, expiresAt: number): void {
    this.holds.set(id, { amount, settled: 0n, status: 'active', expiresAt, released: 0n });
  }

  settle(
    holdId: string,
    meters: readonly { meter: string; quantity: bigint; millicredits: bigint }[],
    priced: bigint,
    now: Date,
  ): Expected<{ charged: bigint; remaining: bigint }> {
    this.roll(now);
    const hold = this.holds.get(holdId)!;
    if (hold.status !== 'active' || hold.expiresAt <= now.getTime()) return { error: 'cap_exceeded' };
    if (hold.settled + priced > hold.amount) return { error: 'cap_exceeded' };
    const left = this.sourcesLeft(now);
    const charged = this.draw(priced < left ? priced : left, now);
    hold.settled += priced;
    if (hold.settled === hold.amount) hold.status = 'settled';
    this.record(meters, charged);
    return { charged, remaining: hold.amount - hold.settled };
  }

  void(holdId: string, now: Date): { released: bigint; settled: bigint } {
    const hold = this.holds.get(holdId)!;
    if (hold.status === 'active' && hold.expiresAt > now.getTime()) {
      hold.status = 'voided';
      hold.released = hold.amount - hold.settled;
    } else if (hold.status === 'active') {
      hold.status = 'expired';
    }
    return { released: hold.status === 'voided' ? hold.released : 0n, settled: hold.settled };
  }

  charge(meters: readonly { meter: string; quantity: bigint; millicredits: bigint }[], priced: bigint, now: Date) {
    this.roll(now);
    const available = this.available(now);
    const charged = this.draw(priced < available ? priced : available, now);
    this.record(meters, charged);
    return { charged };
  }
}
