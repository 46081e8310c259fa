import { type ApiError, isApiError } from '@wap/errors';
import type { ledger } from '@wap/proto';
import { type Charge, toMeters } from './holds.js';
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
      ttlSeconds: settings.ttlSeconds ?? 3_600,
      reference: charge.reference ?? charge.operationId,
    });
    return { id: hold.holdId, remaining: hold.millicredits };
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
      await this.client.void({ holdId: this.hold.id }).catch(() => undefined); // it also lapses by itself
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
      const key = `${this.charge.capability}:${this.charge.operationId}:settle:${this.settlesMade++}`;
      const usage = price <= this.hold.remaining ? await this.settleHeld(due, key) : await this.chargeBeyond(due, key);
      this.charged += usage?.millicredits ?? 0n;
      for (const { meter, quantity } of due) this.accrued.set(meter, (this.accrued.get(meter) ?? 0n) - quantity);
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
    await this.client.void({ holdId: previous.id }).catch(() => undefined);
  }
}
