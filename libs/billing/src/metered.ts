import { type ApiError, isApiError } from '@wap/errors';
import type { ledger } from '@wap/proto';
import { type Charge, releaseHold, toMeters } from './holds.js';
import type { LedgerClient } from './ledger.js';
import { exactUnit, type MeterName, type MeterQuantity, priceUsage } from './prices.js';

export interface MeteredSettings {
  /**
   * Millicredits held ahead of use: what may accrue before the next settle must
   * find credit (five minutes of browser time is 5,000). A new hold is taken when
   * the current one is half spent.
   */
  aheadMc: bigint;
  /** A hold nobody settles or voids lapses after this long (a crashed owner). */
  ttlSeconds?: number;
  /**
   * Told once when the ledger refuses the next hold (`quota_exceeded`): the
   * workspace's credit is running out. The current hold still covers what accrues
   * until it is spent; the owner should end the work now.
   */
  onExhausted?(error: ApiError): void;
  /**
   * Keeps the hold's state where another process can read it (a database row),
   * so that if this process dies mid-work, `recoverMetered` finishes the bill
   * exactly once. Awaited before every call that charges (with the charge as
   * `pending`) and after it; when it fails, the charge is not sent (the next
   * settle tries again).
   */
  journal?(state: MeteredState): Promise<void>;
}

/** How long a metered hold lives unless the settings say otherwise. */
const DEFAULT_TTL_SECONDS = 3_600;

/** A charge sent, or about to be sent, whose answer has not been journaled. */
export interface PendingCharge {
  /** `settle` against `holdId`, or `charge` beyond every hold. */
  kind: 'settle' | 'charge';
  key: string;
  holdId: string;
  /** Quantities per meter, as decimal strings (JSON has no bigint). */
  meters: Partial<Record<MeterName, string>>;
}

/** What a metered hold has told the ledger: enough to finish its bill elsewhere. */
export interface MeteredState {
  /** The hold use is settled against now. */
  holdId: string;
  /** Quantities the ledger has charged so far, per meter (decimal strings). */
  settled: Partial<Record<MeterName, string>>;
  /** Millicredits charged so far (a decimal string). */
  chargedMc: string;
  pending?: PendingCharge;
}

interface Hold {
  id: string;
  remaining: bigint;
}

/**
 * Time- or volume-metered work (browser minutes, agent minutes, proxy bytes):
 * a hold covers the next stretch of use, what accrues is settled in exact units
 * as it goes (`exactUnit`: no rounding until the last settle), and the next
 * hold is taken before the current one runs out, so a long session can never
 * spend more than the workspace has. Every key derives from the operation id
 * and a counter, so a settle retried after a lost answer charges once.
 */
export class MeteredHold {
  private readonly accrued = new Map<MeterName, bigint>();
  private holdsTaken = 1;
  private settlesMade = 0;
  private exhausted = false;
  /** Settles run one at a time, in the order they were asked for. */
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Quantities the ledger has charged, per meter. */
  private readonly settled = new Map<MeterName, bigint>();
  /** Millicredits charged so far. */
  charged = 0n;

  private constructor(
    private readonly client: LedgerClient,
    private readonly charge: Charge,
    private readonly settings: MeteredSettings,
    private hold: Hold,
  ) {}

  /** Holds the first stretch; refused with `quota_exceeded` when the workspace cannot cover it. */
  static async open(client: LedgerClient, charge: Charge, settings: MeteredSettings): Promise<MeteredHold> {
    const first = await MeteredHold.authorize(client, charge, settings, 0);
    return new MeteredHold(client, charge, settings, first);
  }

  private static async authorize(client: LedgerClient, charge: Charge, settings: MeteredSettings, n: number) {
    const hold = await client.authorize({
      workspaceId: charge.workspaceId,
      idempotencyKey: `${charge.capability}:${charge.operationId}:hold:${n}`,
      capability: charge.capability,
      millicredits: settings.aheadMc,
      ttlSeconds: settings.ttlSeconds ?? DEFAULT_TTL_SECONDS,
      reference: charge.reference ?? charge.operationId,
    });
    return { id: hold.holdId, remaining: hold.millicredits };
  }

  /** What to journal: the current hold, what is settled, and the charge in flight. */
  state(pending?: PendingCharge): MeteredState {
    return {
      holdId: this.hold.id,
      settled: decimals(this.settled),
      chargedMc: String(this.charged),
      ...(pending && { pending }),
    };
  }

  /** Records use; it is charged at the next `settle`. */
  add(meter: MeterName, quantity: bigint): void {
    if (this.closed) throw new Error('MeteredHold: closed');
    if (quantity > 0n) this.accrued.set(meter, (this.accrued.get(meter) ?? 0n) + quantity);
  }

  /** Charges the whole units accrued so far; takes the next hold once this one is half spent. */
  settle(): Promise<void> {
    return this.serially(() => this.settleNow(false));
  }

  /** Charges everything accrued (the only rounding) and releases what is held. Answers what was charged in all. */
  close(): Promise<bigint> {
    this.closed = true;
    return this.serially(async () => {
      await this.settleNow(true);
      // It also lapses by itself; through an outage of the ledger it is released as soon as it is back.
      await releaseHold(this.client, this.hold.id, this.settings.ttlSeconds ?? DEFAULT_TTL_SECONDS);
      return this.charged;
    });
  }

  private serially<T>(step: () => Promise<T>): Promise<T> {
    const next = this.chain.then(step);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** What to charge now: whole exact units, or everything at the end. */
  private due(all: boolean): MeterQuantity[] {
    const due: MeterQuantity[] = [];
    for (const [meter, quantity] of this.accrued) {
      const unit = exactUnit(meter);
      const whole = all ? quantity : (quantity / unit) * unit;
      if (whole > 0n) due.push({ meter, quantity: whole });
    }
    return due;
  }

  private async settleNow(all: boolean): Promise<void> {
    const due = this.due(all);
    const price = priceUsage(due).millicredits;
    if (due.length > 0) {
      if (price > this.hold.remaining) await this.renew(price);
      const key = `${this.charge.capability}:${this.charge.operationId}:settle:${this.settlesMade}`;
      const kind = price <= this.hold.remaining ? 'settle' : 'charge';
      await this.settings.journal?.(
        this.state({
          kind,
          key,
          holdId: this.hold.id,
          meters: decimals(due.map((q) => [q.meter, q.quantity] as const)),
        }),
      );
      this.settlesMade++;
      const usage = kind === 'settle' ? await this.settleHeld(due, key) : await this.chargeBeyond(due, key);
      this.charged += usage?.millicredits ?? 0n;
      for (const { meter, quantity } of due) {
        this.accrued.set(meter, (this.accrued.get(meter) ?? 0n) - quantity);
        this.settled.set(meter, (this.settled.get(meter) ?? 0n) + quantity);
      }
      await this.settings.journal?.(this.state());
    }
    if (!all && this.hold.remaining * 2n < this.settings.aheadMc) await this.renew(0n);
  }

  private async settleHeld(due: MeterQuantity[], key: string): Promise<ledger.UsageSummary | undefined> {
    const settled = await this.client.settle({ holdId: this.hold.id, idempotencyKey: key, meters: toMeters(due) });
    this.hold.remaining = settled.holdRemainingMillicredits;
    return settled.usage;
  }

  /**
   * Use beyond every hold (the ledger refused the next one, and the owner has not
   * stopped yet) is charged up to what the workspace has left, never below zero.
   */
  private async chargeBeyond(due: MeterQuantity[], key: string): Promise<ledger.UsageSummary | undefined> {
    // What the current hold still reserves is the workspace's again, so the charge can draw on it.
    await this.client.void({ holdId: this.hold.id });
    this.hold.remaining = 0n;
    const charged = await this.client.charge({
      workspaceId: this.charge.workspaceId,
      idempotencyKey: key,
      capability: this.charge.capability,
      reference: this.charge.reference ?? this.charge.operationId,
      meters: toMeters(due),
    });
    return charged.usage;
  }

  /** Holds the next stretch (and `extra` more) and releases what is left of the current one. */
  private async renew(extra: bigint): Promise<void> {
    if (this.exhausted) return;
    const settings = { ...this.settings, aheadMc: this.settings.aheadMc + extra };
    let next: Hold;
    try {
      next = await MeteredHold.authorize(this.client, this.charge, settings, this.holdsTaken);
    } catch (err) {
      if (!isApiError(err) || err.code !== 'quota_exceeded') throw err;
      this.exhausted = true;
      this.settings.onExhausted?.(err);
      return;
    }
    this.holdsTaken++;
    const previous = this.hold;
    this.hold = next;
    // Journaled before the old hold goes: a recovery always knows a live hold (the other lapses by itself).
    await this.settings.journal?.(this.state());
    await releaseHold(this.client, previous.id, this.settings.ttlSeconds ?? DEFAULT_TTL_SECONDS);
  }
}

const decimals = (quantities: Iterable<readonly [MeterName, bigint]>) => {
  const out: Partial<Record<MeterName, string>> = {};
  for (const [meter, quantity] of quantities) if (quantity > 0n) out[meter] = String(quantity);
  return out;
};

const quantities = (meters: Partial<Record<MeterName, string>>): MeterQuantity[] =>
  Object.entries(meters).map(([meter, q]) => ({ meter: meter as MeterName, quantity: BigInt(q as string) }));

/**
 * Finishes the bill of a metered hold whose owner died, from its journaled
 * state and what was really used (`used`: totals per meter, e.g. the seconds
 * the owner was last seen alive): the charge in flight is sent again under its
 * own key (the ledger answers a repeat with its first answer, so it counts
 * once), the hold is voided, and what was used beyond what is settled is
 * charged under one key of its own, rounded once. Any number of recoveries of
 * the same state, even at once, charge the same total once. Answers the
 * millicredits charged in all.
 */
export async function recoverMetered(
  client: LedgerClient,
  charge: Charge,
  state: MeteredState,
  used: readonly MeterQuantity[],
): Promise<bigint> {
  const settled = new Map(quantities(state.settled).map((q) => [q.meter, q.quantity]));
  let charged = BigInt(state.chargedMc);
  const pending = state.pending;
  if (pending) {
    const meters = toMeters(quantities(pending.meters));
    const replayed = await (pending.kind === 'settle'
      ? client.settle({ holdId: pending.holdId, idempotencyKey: pending.key, meters })
      : client.charge({
          workspaceId: charge.workspaceId,
          idempotencyKey: pending.key,
          capability: charge.capability,
          reference: charge.reference ?? charge.operationId,
          meters,
        })
    ).catch((err) => {
      // Never charged, and its hold is gone: what it carried is charged with the rest below.
      if (isApiError(err) && (err.code === 'cap_exceeded' || err.code === 'not_found')) return undefined;
      throw err;
    });
    if (replayed) {
      charged += replayed.usage?.millicredits ?? 0n;
      for (const q of quantities(pending.meters)) settled.set(q.meter, (settled.get(q.meter) ?? 0n) + q.quantity);
    }
  }
  await releaseHold(client, state.holdId, DEFAULT_TTL_SECONDS); // already resolved, or released when the ledger is back
  const rest = used
    .map((q) => ({ meter: q.meter, quantity: q.quantity - (settled.get(q.meter) ?? 0n) }))
    .filter((q) => q.quantity > 0n);
  if (rest.length > 0) {
    const finished = await client.charge({
      workspaceId: charge.workspaceId,
      idempotencyKey: `${charge.capability}:${charge.operationId}:recovered`,
      capability: charge.capability,
      reference: charge.reference ?? charge.operationId,
      meters: toMeters(rest),
    });
    charged += finished.usage?.millicredits ?? 0n;
  }
  return charged;
}
