// The money movements, each one call of a ledger_* SQL function (migrations
// *_ledger_money_functions and *_ledger_operations), typed here.
import { randomUUID } from 'node:crypto';
import type { PricedUsage } from '@wap/billing';
import type pg from 'pg';
import type { Period } from '../domain/period.js';
import { type BatchedFunction, Batcher, type BatcherSettings, DEFAULT_BATCHING } from './batcher.js';
import { type Answer, callLedger, isRefusal } from './call.js';
import type { ChangeSink } from './changes.js';

/** A usage summary as stored: exact integers travel as strings inside the jsonb. */
export interface StoredUsage {
  meters: { meter: string; quantity: string; mc: string }[];
  millicredits: number;
}

/** What an account is opened on, or moved to. */
export interface AccountTerms {
  plan: string;
  monthlyMc: bigint;
  slots: number;
}

export interface Clocked {
  now: Date;
  period: Period;
}

const meterJson = (usage: PricedUsage) =>
  JSON.stringify(
    usage.meters.map((m) => ({ meter: m.meter, quantity: m.quantity.toString(), mc: m.millicredits.toString() })),
  );

export class MoneyStore {
  readonly batcher: Batcher;

  constructor(
    private readonly pool: pg.Pool,
    batching: BatcherSettings = DEFAULT_BATCHING,
    /** Told about every committed change to a workspace's credits (gateways cache credit views). */
    private readonly changes?: ChangeSink,
  ) {
    this.batcher = new Batcher(pool, batching);
  }

  /** Tells the change sink what `answer` changed, once it is committed and if it was not a refusal. */
  private told<T extends object>(answer: Promise<Answer<T>>, tell: (sink: ChangeSink, answer: T) => void) {
    const sink = this.changes;
    if (!sink) return answer;
    return answer.then((a) => {
      if (!isRefusal(a)) tell(sink, a);
      return a;
    });
  }

  private call<T>(fn: string, values: unknown[]) {
    return callLedger<T>(this.pool, fn, values);
  }

  /** The hot calls: grouped into one transaction with whatever arrives alongside. */
  private batched<T>(fn: BatchedFunction, values: unknown[]) {
    return this.batcher.call<T>(fn, values);
  }

  /** Opens the account on `open` if it has none, then applies whatever `change` names. */
  ensureAccount(workspaceId: string, terms: { open: AccountTerms; change?: Partial<AccountTerms> }, at: Clocked) {
    const change = terms.change ?? {};
    const answer = this.call<{ plan: string; slots: number; allowance: number }>('ledger_ensure_account', [
      workspaceId,
      terms.open.plan,
      terms.open.monthlyMc,
      terms.open.slots,
      change.plan ?? null,
      change.monthlyMc ?? null,
      change.slots ?? null,
      at.now,
      at.period.start,
    ]);
    return this.told(answer, (sink) => sink.workspace(workspaceId));
  }

  grant(
    g: {
      workspaceId: string;
      key: string;
      hash: string;
      kind: string;
      amountMc: bigint;
      lapsesAt: Date | null;
      note: string;
    },
    at: Clocked,
  ) {
    const answer = this.call<{ grant_id: string }>('ledger_grant', [
      g.workspaceId,
      g.key,
      g.hash,
      g.kind,
      g.amountMc,
      g.lapsesAt,
      g.note,
      at.now,
      at.period.start,
      randomUUID(),
    ]);
    return this.told(answer, (sink) => sink.workspace(g.workspaceId));
  }

  authorize(
    a: {
      workspaceId: string;
      key: string;
      hash: string;
      capability: string;
      reference: string;
      amountMc: bigint;
      ttlSeconds: number;
    },
    at: Clocked,
  ) {
    const answer = this.batched<{ hold_id: string; millicredits: number; expires_at: number }>('ledger_authorize', [
      a.workspaceId,
      a.key,
      a.hash,
      a.capability,
      a.reference,
      a.amountMc,
      a.ttlSeconds,
      at.now,
      at.period.start,
      randomUUID(),
    ]);
    return this.told(answer, (sink, placed) => {
      sink.holdPlaced(placed.hold_id, a.workspaceId);
      sink.workspace(a.workspaceId);
    });
  }

  /** `reference`: the call billed, listed in its usage row instead of the hold's (a hold drawn down). */
  settle(s: { holdId: string; key: string; hash: string; usage: PricedUsage; reference?: string | null }, at: Clocked) {
    const answer = this.batched<{ usage: StoredUsage; hold_remaining: number }>('ledger_settle', [
      s.holdId,
      s.key,
      s.hash,
      meterJson(s.usage),
      s.usage.millicredits,
      at.now,
      at.period.start,
      at.period.end,
      randomUUID(),
      s.reference ?? null,
    ]);
    return this.told(answer, (sink) => sink.hold(s.holdId));
  }

  void(holdId: string, at: Clocked) {
    const answer = this.call<{ released: number; settled: number; status: string }>('ledger_void', [holdId, at.now]);
    return this.told(answer, (sink) => sink.hold(holdId));
  }

  charge(
    c: { workspaceId: string; key: string; hash: string; capability: string; reference: string; usage: PricedUsage },
    at: Clocked,
  ) {
    const answer = this.batched<{ usage: StoredUsage }>('ledger_charge', [
      c.workspaceId,
      c.key,
      c.hash,
      c.capability,
      c.reference,
      meterJson(c.usage),
      c.usage.millicredits,
      at.now,
      at.period.start,
      at.period.end,
      randomUUID(),
    ]);
    return this.told(answer, (sink) => sink.workspace(c.workspaceId));
  }

  /** Expires due holds and deletes lapsed leases, one batch; answers how many of either. */
  async sweep(now: Date, batch: number): Promise<number> {
    const result = await this.pool.query<{ n: number }>('SELECT "ledger_sweep"($1, $2) AS n', [now, batch]);
    return result.rows[0]!.n;
  }
}
