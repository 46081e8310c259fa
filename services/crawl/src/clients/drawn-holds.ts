// Scrapes of a busy workspace drawn down from one hold taken ahead, each settled
// as its own call (docs/decisions/0031-scrape-hold-drawn-down.md).
import { randomUUID } from 'node:crypto';
import {
  billed,
  type Charge,
  type LedgerClient,
  type MeterQuantity,
  NO_USAGE,
  priceUsage,
  SettleBatcher,
  toMeters,
} from '@wap/billing';
import { isApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import type { ledger } from '@wap/proto';

export interface DrawnHoldSettings {
  /** The most page loads a hold taken ahead covers (SCRAPE_HOLD_AHEAD), four per scrape under way; 0: none. */
  pages: number;
  /** How long the hold taken ahead lives. */
  ttlSeconds?: number;
  /** After a hold is refused, pages hold alone this long before another is tried. */
  refusedMs?: number;
}

/** A hold taken ahead: what of it is not yet drawn, and the draws still out. */
interface Ahead {
  holdId: string;
  left: bigint;
  out: number;
  /** When the ledger lets it lapse: a scrape draws on it only if it ends well before. */
  expiresAt: number;
  retired: boolean;
}

interface Workspace {
  /** Scrapes of the workspace under way here: two or more make it busy. */
  inFlight: number;
  current?: Ahead;
  /** The hold being taken, which draws that find none wait for. */
  taking?: Promise<Ahead | undefined>;
  refusedUntil: number;
}

const DEFAULT_TTL_SECONDS = 600;
/** What a scrape's own work may take beyond its hold's lifetime, as margin. */
const MARGIN_MS = 30_000;
const PAGES_PER_SCRAPE = 4;
/** The first wait before a void the ledger could not take is asked again. */
const VOID_RETRY_MS = 1_000;
const PAGE_MC = priceUsage([{ meter: 'page_load', quantity: 1n }]).millicredits;

/**
 * Scrapes billed with one ledger call each (decision 0031). While a workspace
 * has more than one scrape under way, a hold of four page loads per scrape
 * under way (at most `pages`) is taken for it ahead; each scrape draws its page from it here, in memory, and settles
 * what it used against it under its own key and reference (one usage row per
 * call, as before), the settles of concurrent scrapes leaving in one
 * SettleBatch. A scrape that fails draws nothing back from the ledger: its page
 * returns to the hold. The hold is voided when the workspace has no scrape
 * left. A lone scrape, one that may run longer than the hold has to live
 * (model formats), one that read more pages than the hold has left, a
 * workspace whose balance cannot hold that ahead, and a settle the hold
 * refused all go the per-page way (`billed`: authorize, settle), so a
 * workspace without credit is refused at once as before.
 */
export class DrawnHolds {
  private readonly workspaces = new Map<string, Workspace>();
  private readonly settles: SettleBatcher;
  private readonly ttlSeconds: number;
  /** Holds taken ahead, for the tests and the bench's account of ledger calls. */
  taken = 0;

  constructor(
    private readonly client: LedgerClient,
    private readonly settings: DrawnHoldSettings,
    private readonly log: Pick<Logger, 'warn'>,
  ) {
    this.settles = new SettleBatcher(client);
    this.ttlSeconds = settings.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  }

  /** `billed`, drawing the page from a hold taken ahead while the workspace is busy. */
  async billed<T>(
    charge: Charge,
    most: readonly MeterQuantity[],
    work: () => Promise<{ result: T; used: readonly MeterQuantity[] }>,
    ttlSeconds = 300,
  ): Promise<{ result: T; usage: ledger.UsageSummary }> {
    const key = `${charge.workspaceId} ${charge.capability}`;
    const ws = this.workspaces.get(key) ?? { inFlight: 0, refusedUntil: 0 };
    this.workspaces.set(key, ws);
    ws.inFlight++;
    try {
      const mc = priceUsage(most).millicredits;
      const ahead = mc <= PAGE_MC ? await this.draw(ws, charge, mc, ttlSeconds * 1000 + MARGIN_MS) : undefined;
      if (!ahead) return await billed(this.client, charge, most, work, ttlSeconds);
      return await this.drawn(ahead, mc, charge, most, work, ttlSeconds);
    } finally {
      ws.inFlight--;
      if (ws.inFlight === 0) {
        this.workspaces.delete(key);
        // Nothing under way: what is left goes back to the workspace before the last answer leaves.
        if (ws.current) await this.retire(ws.current);
      }
    }
  }

  /** Settles a drawn page as its own call; anything the hold cannot take is billed the per-page way. */
  private async drawn<T>(
    ahead: Ahead,
    mc: bigint,
    charge: Charge,
    most: readonly MeterQuantity[],
    work: () => Promise<{ result: T; used: readonly MeterQuantity[] }>,
    ttlSeconds: number,
  ): Promise<{ result: T; usage: ledger.UsageSummary }> {
    let drawn = mc;
    let done: { result: T; used: readonly MeterQuantity[] };
    try {
      done = await work();
    } catch (err) {
      await this.giveBack(ahead, drawn);
      throw err;
    }
    const { result, used } = done;
    const meters = toMeters(used);
    const price = priceUsage(used).millicredits;
    // A document of more pages draws the rest from the same hold when it has it.
    if (price > drawn && !ahead.retired && ahead.left >= price - drawn) {
      ahead.left -= price - drawn;
      drawn = price;
    }
    try {
      if (meters.length === 0) return { result, usage: NO_USAGE };
      if (price <= drawn) {
        const settled = await this.settles
          .settle({
            holdId: ahead.holdId,
            idempotencyKey: `${charge.capability}:${charge.operationId}:settle`,
            meters,
            reference: charge.reference ?? charge.operationId,
          })
          .catch((err: unknown) => {
            // The hold lapsed or is gone (nothing was charged): the page is billed the per-page way.
            if (isApiError(err) && (err.code === 'cap_exceeded' || err.code === 'not_found')) {
              ahead.retired = true;
              return undefined;
            }
            throw err;
          });
        if (settled) {
          drawn -= price;
          return { result, usage: settled.usage ?? NO_USAGE };
        }
      }
      return await billed(this.client, charge, most, async () => ({ result, used }), ttlSeconds);
    } finally {
      await this.giveBack(ahead, drawn);
    }
  }

  /** A page from the workspace's hold taken ahead, taking one when it is busy and has none that can serve. */
  private async draw(ws: Workspace, charge: Charge, mc: bigint, forMs: number): Promise<Ahead | undefined> {
    // A scrape that may outlive any hold taken ahead (model formats: 15 minutes) holds alone.
    if (this.settings.pages <= 0 || forMs > this.ttlSeconds * 1000) return undefined;
    for (let tries = 0; tries < 2; tries++) {
      const current = ws.current;
      if (current && !current.retired && current.left >= mc && Date.now() + forMs <= current.expiresAt) {
        current.left -= mc;
        current.out++;
        return current;
      }
      if (current) {
        ws.current = undefined;
        void this.retire(current);
      }
      // A lone scrape holds its page alone: a quiet workspace's balance never shows pages held ahead.
      if (ws.inFlight < 2 || Date.now() < ws.refusedUntil) return undefined;
      ws.taking ??= this.take(ws, charge).finally(() => {
        ws.taking = undefined;
      });
      ws.current = (await ws.taking) ?? ws.current;
      if (!ws.current) return undefined;
    }
    return undefined;
  }

  /** Authorizes the next hold taken ahead; a refusal (the balance is tight) means per-page holds for a while. */
  private async take(ws: Workspace, charge: Charge): Promise<Ahead | undefined> {
    // Four pages per scrape under way (at most `pages`): a lightly busy workspace holds little ahead.
    const amount = PAGE_MC * BigInt(Math.min(this.settings.pages, PAGES_PER_SCRAPE * ws.inFlight));
    const at = Date.now();
    try {
      const hold = await this.client.authorize({
        workspaceId: charge.workspaceId,
        // A hold of its own, for no one call: a lost answer leaves it to lapse by itself.
        idempotencyKey: `${charge.capability}:ahead:${randomUUID()}`,
        capability: charge.capability,
        millicredits: amount,
        ttlSeconds: this.ttlSeconds,
        reference: `${charge.capability} held ahead`,
      });
      this.taken++;
      return {
        holdId: hold.holdId,
        left: hold.millicredits,
        out: 0,
        expiresAt: at + this.ttlSeconds * 1000,
        retired: false,
      };
    } catch (err) {
      if (!isApiError(err) || err.code !== 'quota_exceeded') throw err;
      ws.refusedUntil = Date.now() + (this.settings.refusedMs ?? 1_000);
      return undefined;
    }
  }

  /** What a draw did not use returns to its hold; a retired hold's last draw releases the rest. */
  private async giveBack(ahead: Ahead, mc: bigint): Promise<void> {
    ahead.left += mc;
    ahead.out--;
    if (ahead.retired && ahead.out === 0) await this.release(ahead);
  }

  /** No more draws; the rest is released once the draws still out are settled. */
  private async retire(ahead: Ahead): Promise<void> {
    ahead.retired = true;
    if (ahead.out === 0) await this.release(ahead);
  }

  private async release(ahead: Ahead): Promise<void> {
    if (ahead.left === 0n) return;
    ahead.left = 0n;
    if (await this.voided(ahead)) return;
    // The ledger could not void it now (its database restarting): asked again, a second later and
    // doubling, so the workspace's credits come back soon after the ledger does, not when it lapses.
    const again = (waitMs: number) =>
      setTimeout(async () => {
        if (!(await this.voided(ahead)) && Date.now() + waitMs < ahead.expiresAt) again(Math.min(waitMs * 2, 30_000));
      }, waitMs).unref();
    again(VOID_RETRY_MS);
  }

  /**
   * Voids the hold: false when the ledger could not take it now (worth asking again); true when it
   * did, or refused it for good (an unknown hold: nothing to ask again; it lapses by itself).
   */
  private voided(ahead: Ahead): Promise<boolean> {
    return this.client.void({ holdId: ahead.holdId }).then(
      () => true,
      (err) => {
        const final = isApiError(err) && (err.code === 'not_found' || err.code === 'bad_request');
        this.log.warn({ err, holdId: ahead.holdId }, `hold taken ahead not voided${final ? '' : '; asked again'}`);
        return final;
      },
    );
  }
}
