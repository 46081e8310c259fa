// Marks expired holds and deletes lapsed slot leases in the background. Reads
// already treat both as gone, so the sweep only keeps the tables honest and
// the live-hold index small. Every replica runs one; SKIP LOCKED shares the work.
import type { Logger } from '@wap/log';
import type { Clock } from '../rpc/deps.js';
import type { MoneyStore } from '../store/money.js';

const BATCH = 500;

export class Sweeper {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly money: MoneyStore,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    const tick = () => {
      if (this.stopped) return;
      this.pass = this.sweepAll()
        .then(() => undefined)
        .catch((err) => this.log.warn({ err }, 'hold sweep failed; will retry'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.intervalMs);
        });
    };
    this.timer = setTimeout(tick, this.intervalMs);
  }

  /** Sweeps until a batch comes back short; answers how many rows it changed. */
  async sweepAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const done = await this.money.sweep(this.clock(), BATCH);
      total += done;
      if (done < BATCH || this.stopped) return total;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.pass;
  }
}
