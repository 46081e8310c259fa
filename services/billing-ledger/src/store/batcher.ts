// Group commit for the hot money calls (docs/decisions/0027-ledger-group-commit.md).
// One batch is out at a time: the calls that arrive meanwhile, and those that
// arrive within `gatherMs` of the first of them, leave together as one
// ledger_batch: one round trip, one transaction, one WAL flush, the calls run
// in the order they came. A quiet ledger (nothing for two windows), or one
// whose calls come one at a time, sends a call at once, so it adds no latency;
// a busy one does less work per call the busier it is. Answers resolve only
// after their batch commits.
import { type BatchSettings, Batcher as GroupedCalls } from '@wap/service';
import type pg from 'pg';
import { type Answer, callLedger } from './call.js';

/** The functions ledger_batch knows how to run. */
export type BatchedFunction = 'ledger_authorize' | 'ledger_settle' | 'ledger_charge';

interface Call {
  fn: BatchedFunction;
  args: unknown[];
}

export type BatcherSettings = BatchSettings;

/**
 * One batch out at a time (so a workspace's calls run in the order they came,
 * and a batch never waits on another's locks), gathered for up to 2 ms when
 * busy; 32 calls per batch at most (one transaction's locks and WAL stay small).
 */
export const DEFAULT_BATCHING: BatcherSettings = { maxInFlight: 1, maxBatch: 32, gatherMs: 2 };

// Exact integers and instants survive JSON as strings; ledger_batch casts them back.
const jsonArg = (value: unknown) =>
  typeof value === 'bigint' ? value.toString() : value instanceof Date ? value.toISOString() : value;

export class Batcher {
  private readonly batches: GroupedCalls<Call, unknown>;
  /** Calls that went out inside a batch of more than one, for tests and the bench. */
  batched = 0;
  /** Batches that failed and were run again call by call. */
  fallbacks = 0;

  constructor(
    private readonly pool: pg.Pool,
    settings: BatcherSettings = DEFAULT_BATCHING,
  ) {
    this.batches = new GroupedCalls((calls) => this.send(calls), settings);
  }

  /** Batches sent (a call alone counts as one) and the calls in them. */
  get sent(): { batches: number; items: number } {
    return this.batches.sent;
  }

  call<T>(fn: BatchedFunction, args: unknown[]): Promise<Answer<T>> {
    return this.batches.call({ fn, args }) as Promise<Answer<T>>;
  }

  private async send(batch: Call[]): Promise<PromiseSettledResult<unknown>[]> {
    if (batch.length === 1) return [await this.alone(batch[0]!)];
    let answers: unknown[];
    try {
      const calls = JSON.stringify(batch.map((p) => ({ fn: p.fn, args: p.args.map(jsonArg) })));
      const result = await this.pool.query<{ r: unknown[] }>({
        name: 'ledger_batch',
        text: 'SELECT "ledger_batch"($1::jsonb) AS r',
        values: [calls],
      });
      answers = result.rows[0]!.r;
    } catch {
      this.fallbacks++;
      // The batch rolled back whole; each call runs again on its own, so one
      // bad call fails alone (every call here is idempotent by its key).
      return Promise.all(batch.map((p) => this.alone(p)));
    }
    this.batched += batch.length;
    return batch.map((_, i) => ({ status: 'fulfilled', value: answers[i] }));
  }

  private async alone(p: Call): Promise<PromiseSettledResult<unknown>> {
    try {
      return { status: 'fulfilled', value: await callLedger(this.pool, p.fn, p.args) };
    } catch (reason) {
      return { status: 'rejected', reason };
    }
  }
}
