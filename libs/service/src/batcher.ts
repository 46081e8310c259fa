// Group calls: many callers' small requests leave as one. A call goes out at
// once while fewer than `maxInFlight` batches are out; calls made meanwhile
// queue and leave together when one answers. So a quiet caller waits for
// nothing, and a busy one makes fewer round trips the busier it is.

export interface BatchSettings {
  /** Batches out at once. */
  maxInFlight: number;
  /** Calls per batch at most. */
  maxBatch: number;
}

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
  /** Batches sent and items in them, for tests and benches. */
  readonly sent = { batches: 0, items: 0 };

  constructor(
    private readonly send: SendBatch<T, R>,
    private readonly settings: BatchSettings = { maxInFlight: 1, maxBatch: 64 },
  ) {}

  call(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
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

  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.settings.maxInFlight) {
      const batch = this.queue.splice(0, this.settings.maxBatch);
      this.inFlight++;
      void this.deliver(batch).finally(() => {
        this.inFlight--;
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
