// Group calls: many callers' small requests leave as one. A call goes out at
// once while fewer than `maxInFlight` batches are out; calls made meanwhile
// queue and leave together when one answers. So a quiet caller waits for
// nothing, and a busy one makes fewer round trips the busier it is. With
// `gatherMs`, a busy caller's batch also waits that long for company before it
// leaves, so calls arriving a little apart share one batch too; a caller
// whose calls come one at a time never waits.

export interface BatchSettings {
  /** Batches out at once. */
  maxInFlight: number;
  /** Calls per batch at most. */
  maxBatch: number;
  /**
   * How long the first call of a batch waits for others to join it, when the
   * caller is busy: the last batch carried more than one call, and a call came
   * or a batch was answered within the last `QUIET_GATHERS` windows. The batch
   * leaves early once it holds as many calls as the last one did (the company
   * it waited for came) or is full; a call after a quiet spell, or from a
   * caller whose calls come one at a time, leaves at once. 0 or absent:
   * batches leave as soon as a slot is free.
   */
  gatherMs?: number;
}

/** A caller is quiet when nothing came or was answered for this many gather windows: its next call waits for nobody. */
export const QUIET_GATHERS = 2;

/**
 * Sends one batch; answers one outcome per item, in order. A rejection fails
 * every item of the batch with that reason.
 */
export type SendBatch<T, R> = (items: T[]) => Promise<PromiseSettledResult<R>[]>;

interface Pending<T, R> {
  item: T;
  resolve(value: R): void;
  reject(reason: unknown): void;
}

export class Batcher<T, R> {
  private readonly queue: Pending<T, R>[] = [];
  private inFlight = 0;
  private pumpScheduled = false;
  /** When the current batch's first call arrived (it leaves `gatherMs` later), and the last call or answer before it. */
  private gatherFrom = 0;
  private lastBusyAt = Number.NEGATIVE_INFINITY;
  private lastBatchSize = 0;
  private gatherTimer: NodeJS.Timeout | undefined;
  /** Batches sent and items in them, for tests and benches. */
  readonly sent = { batches: 0, items: 0 };

  constructor(
    private readonly send: SendBatch<T, R>,
    private readonly settings: BatchSettings = { maxInFlight: 1, maxBatch: 64 },
  ) {}

  call(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      const gather = this.settings.gatherMs ?? 0;
      if (gather > 0) {
        const now = performance.now();
        // The first call of a batch: it waits for company only if company came lately.
        if (this.queue.length === 0) {
          const busy = this.lastBatchSize > 1 && now - this.lastBusyAt <= QUIET_GATHERS * gather;
          this.gatherFrom = busy ? now : Number.NEGATIVE_INFINITY;
        }
        this.lastBusyAt = now;
      }
      this.queue.push({ item, resolve, reject });
      this.schedulePump();
    });
  }

  /**
   * Pumps once the current turn's synchronous work is done, so calls made in
   * the same turn leave together instead of the first one going alone.
   */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    queueMicrotask(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  /** Whether the queued calls may leave now; if not, a timer pumps again when their window closes. */
  private gathered(): boolean {
    const gather = this.settings.gatherMs ?? 0;
    if (gather <= 0 || this.queue.length >= Math.min(this.settings.maxBatch, Math.max(2, this.lastBatchSize))) {
      return true;
    }
    const wait = this.gatherFrom + gather - performance.now();
    if (wait <= 0) return true;
    if (!this.gatherTimer) {
      this.gatherTimer = setTimeout(() => {
        this.gatherTimer = undefined;
        this.pump();
      }, wait);
    }
    return false;
  }

  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.settings.maxInFlight && this.gathered()) {
      const batch = this.queue.splice(0, this.settings.maxBatch);
      this.lastBatchSize = batch.length;
      // Calls left behind by a full batch have waited already: they leave with the next free slot.
      this.gatherFrom = Number.NEGATIVE_INFINITY;
      clearTimeout(this.gatherTimer);
      this.gatherTimer = undefined;
      this.inFlight++;
      void this.deliver(batch).finally(() => {
        this.inFlight--;
        this.lastBusyAt = performance.now();
        this.pump();
      });
    }
  }

  private async deliver(batch: Pending<T, R>[]): Promise<void> {
    this.sent.batches++;
    this.sent.items += batch.length;
    let outcomes: PromiseSettledResult<R>[];
    try {
      outcomes = await this.send(batch.map((p) => p.item));
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    for (const [i, p] of batch.entries()) {
      const outcome = outcomes[i];
      if (outcome?.status === 'fulfilled') p.resolve(outcome.value);
      else p.reject(outcome ? outcome.reason : new Error(`the batch answered ${outcomes.length} of ${batch.length}`));
    }
  }
}
