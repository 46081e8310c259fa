// The invariants the model-based test checks against the stored rows after
// every batch: entries add up to what each source says it spent, nothing is
// spent beyond what it held, and Usage reports exactly the answers given.
import assert from 'node:assert/strict';
import type { ledger } from '@wap/proto';
import type pg from 'pg';
import type { LedgerClient } from '../test-support.js';
import { meterName } from '../views/convert.js';

export interface StoredHold {
  amount: bigint;
  settled: bigint;
  status: string;
  expiresAt: number;
}

export interface StoredState {
  allowance: bigint;
  allowanceSpent: bigint;
  grants: Map<string, { amount: bigint; spent: bigint }>;
  holds: Map<string, StoredHold>;
  /** Every spend entry ever, across periods and sources. */
  spentByEntries: bigint;
  /** What each usage row is listed under, by its idempotency key. */
  usageReferences: Map<string, string>;
}

export async function storedState(pool: pg.Pool, workspaceId: string): Promise<StoredState> {
  const [account, grants, allowanceEntries, holds, spent, usage] = await Promise.all([
    pool.query('SELECT * FROM "accounts" WHERE "workspace_id" = $1', [workspaceId]),
    pool.query(
      `SELECT g."id", g."amount_mc", g."spent_mc",
              (SELECT coalesce(sum(e."amount_mc"), 0) FROM "entries" e
                WHERE e."grant_id" = g."id" AND e."kind" = 'spend') AS entries
         FROM "grants" g WHERE g."workspace_id" = $1`,
      [workspaceId],
    ),
    pool.query(
      `SELECT coalesce(sum(e."amount_mc"), 0) AS sum FROM "entries" e JOIN "accounts" a USING ("workspace_id")
        WHERE e."workspace_id" = $1 AND e."allowance_period_start" = a."allowance_period_start"`,
      [workspaceId],
    ),
    pool.query('SELECT * FROM "holds" WHERE "workspace_id" = $1', [workspaceId]),
    pool.query(
      `SELECT coalesce(sum("amount_mc"), 0) AS sum FROM "entries" WHERE "workspace_id" = $1 AND "kind" = 'spend'`,
      [workspaceId],
    ),
    pool.query('SELECT "idempotency_key", "reference" FROM "usage_records" WHERE "workspace_id" = $1', [workspaceId]),
  ]);
  const acc = account.rows[0];
  const state: StoredState = {
    allowance: BigInt(acc.allowance_mc),
    allowanceSpent: BigInt(acc.allowance_spent_mc),
    grants: new Map(),
    holds: new Map(),
    spentByEntries: BigInt(spent.rows[0].sum),
    usageReferences: new Map(usage.rows.map((r) => [r.idempotency_key as string, r.reference as string])),
  };
  assert.ok(state.allowanceSpent >= 0n && state.allowanceSpent <= state.allowance, 'allowance within bounds');
  assert.equal(BigInt(allowanceEntries.rows[0].sum), state.allowanceSpent, 'allowance entries = allowance spent');
  for (const g of grants.rows) {
    const grant = { amount: BigInt(g.amount_mc), spent: BigInt(g.spent_mc) };
    assert.ok(grant.spent >= 0n && grant.spent <= grant.amount, `grant ${g.id} within bounds`);
    assert.equal(BigInt(g.entries), grant.spent, `entries of grant ${g.id} = its spent`);
    state.grants.set(g.id, grant);
  }
  for (const h of holds.rows) {
    const hold = {
      amount: BigInt(h.amount_mc),
      settled: BigInt(h.settled_mc),
      status: h.status as string,
      expiresAt: (h.expires_at as Date).getTime(),
    };
    assert.ok(hold.settled >= 0n && hold.settled <= hold.amount, `hold ${h.id} settled within its amount`);
    state.holds.set(h.id, hold);
  }
  return state;
}

/** The status a hold has at `now`, whether or not the sweep has marked it. */
export const effectiveStatus = (hold: StoredHold, now: Date) =>
  hold.status === 'active' && hold.expiresAt <= now.getTime() ? 'expired' : hold.status;

export interface UsageTally {
  meters: Map<string, { quantity: bigint; millicredits: bigint }>;
  charged: bigint;
}

export function tally(into: UsageTally, usage: ledger.UsageSummary | undefined): void {
  for (const m of usage?.meters ?? []) {
    const name = meterName(m.meter)!;
    const sum = into.meters.get(name) ?? { quantity: 0n, millicredits: 0n };
    sum.quantity += m.quantity;
    sum.millicredits += m.millicredits;
    into.meters.set(name, sum);
  }
  into.charged += usage?.millicredits ?? 0n;
}

/** Usage over the whole test equals the sum of the answers' usage objects. */
export async function checkUsage(
  client: LedgerClient,
  workspaceId: string,
  expected: UsageTally,
  from: Date,
  to: Date,
) {
  const report = await client.usage({
    workspaceId,
    from: { seconds: BigInt(Math.floor(from.getTime() / 1000)), nanos: 0 },
    to: { seconds: BigInt(Math.ceil(to.getTime() / 1000) + 1), nanos: 0 },
  });
  const reported = new Map(
    (report.total?.meters ?? []).map((m) => [
      meterName(m.meter)!,
      { quantity: m.quantity, millicredits: m.millicredits },
    ]),
  );
  assert.deepEqual(reported, expected.meters, `${workspaceId}: usage by meter = sum of answers`);
  assert.equal(report.total?.millicredits, expected.charged, `${workspaceId}: usage total = sum of answers`);
  const byDay = report.byDay.reduce((sum, b) => sum + b.millicredits, 0n);
  const byCapability = report.byCapability.reduce((sum, b) => sum + b.millicredits, 0n);
  assert.equal(byDay, expected.charged, `${workspaceId}: days add up`);
  assert.equal(byCapability, expected.charged, `${workspaceId}: capabilities add up`);
  return report;
}
