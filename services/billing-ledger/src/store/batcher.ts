// Group commit for the hot money calls. A call goes to Postgres at once while
// fewer than `maxInFlight` round trips are out; beyond that, calls queue and
// leave together as one ledger_batch: one round trip, one transaction, one WAL
// flush. So a quiet ledger adds no latency, and a busy one does less work per
// call the busier it is. Answers resolve only after their batch commits.
import type pg from 'pg';
import { type Answer, callLedger } from './call.js';

/** The functions ledger_batch knows how to run. */
export type BatchedFunction = 'ledger_authorize' | 'ledger_settle' | 'ledger_charge';

interface Pending {
  fn: BatchedFunction;
  args: unknown[];
  resolve(answer: unknown): void;
  reject(err: unknown): void;
}

export interface BatcherSettings {
  /** Round trips out at once; Postgres on a small machine gains nothing from more. */
  maxInFlight: number;
  /** Calls per batch; keeps one transaction's locks and WAL small. */
  maxBatch: number;
}

export const DEFAULT_BATCHING: BatcherSettings = { maxInFlight: 2, maxBatch: 32 };

// Exact integers and instants survive JSON as strings; ledger_batch casts them back.
const jsonArg = (value: unknown) =>
  typeof value === 'bigint' ? value.toString() : value instanceof Date ? value.toISOString() : value;

export class Batcher {
  private readonly queue: Pending[] = [];
  private inFlight = 0;
  private pumpScheduled = false;
  /** Calls that went out inside a batch of more than one, for tests and the bench. */
  batched = 0;
  /** Batches that failed and were run again call by call. */
  fallbacks = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly settings: BatcherSettings = DEFAULT_BATCHING,
  ) {}

  call<T>(fn: BatchedFunction, args: unknown[]): Promise<Answer<T>> {
    return new Promise((resolve, reject) => {
      this.queue.push({ fn, args, resolve: resolve as (answer: unknown) => void, reject });
      this.schedulePump();
    });
  }

  /**
   * Pumps once the current turn's synchronous work is done, so calls made in
   * the same turn (a SettleBatch, requests read from one socket chunk) leave
   * together instead of the first ones going alone.
   */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    queueMicrotask(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.settings.maxInFlight) {
      const batch = this.queue.splice(0, this.settings.maxBatch);
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async send(batch: Pending[]): Promise<void> {
    if (batch.length === 1) return this.alone(batch[0]!);
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
      await Promise.all(batch.map((p) => this.alone(p)));
      return;
    }
    this.batched += batch.length;
    for (const [i, p] of batch.entries()) p.resolve(answers[i]);
  }

  private async alone(p: Pending): Promise<void> {
    try {
      p.resolve(await callLedger(this.pool, p.fn, p.args));
    } catch (err) {
      p.reject(err);
    }
  }
}
