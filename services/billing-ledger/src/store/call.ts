// Calls one ledger_* SQL function: one statement, so one transaction and one
// round trip. Answers come back as the function's jsonb.
import type pg from 'pg';

/** A refusal a function answered with; it wrote nothing. */
export type Refusal =
  | { error: 'account_not_found' | 'hold_not_found' | 'lease_not_found' | 'grant_lapsed' }
  | { error: 'idempotency_conflict'; operation: string }
  | { error: 'quota_exceeded'; needed: number; available: number }
  | { error: 'cap_exceeded' | 'hold_resolved'; cap: number; spent: number; needed: number; status?: string }
  | { error: 'concurrency_limit'; limit: number; active: number; retry_after_seconds: number | null };

export type Answer<T> = T | Refusal;

export const isRefusal = <T extends object>(answer: Answer<T>): answer is Refusal => 'error' in answer;

export async function callLedger<T>(pool: pg.Pool, fn: string, values: unknown[]): Promise<Answer<T>> {
  const params = values.map((_, i) => `$${i + 1}`).join(', ');
  // Named, so each connection plans the call once.
  const result = await pool.query<{ r: Answer<T> }>({ name: fn, text: `SELECT "${fn}"(${params}) AS r`, values });
  return result.rows[0]!.r;
}
