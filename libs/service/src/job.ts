// A service's periodic work (sweeps, expiries): one pass at a time, every
// `intervalMs` after the last pass ended, a failed pass logged and retried on
// the next tick, and a stop that waits for the pass in flight.
import type { Logger } from '@wap/log';

export interface JobSettings {
  /** What the job is, for the logs. */
  name: string;
  intervalMs: number;
  log: Logger;
  /** Run the first pass at once instead of after one interval. */
  immediately?: boolean;
}

export class PeriodicJob<T = unknown> {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> | undefined;
  private stopped = false;
  private started = false;
  private passing = false;
  private again = false;

  constructor(
    private readonly settings: JobSettings,
    /** One pass; the job calls it again only after it settles. */
    private readonly run: () => Promise<T>,
  ) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(this.settings.immediately ? 0 : this.settings.intervalMs);
  }

  /** One pass now, outside the schedule (tests, an operator's nudge); answers what the pass answered. */
  runOnce(): Promise<T> {
    return this.run();
  }

  /**
   * A pass as soon as may be, without waiting out the interval: now when idle,
   * right after the pass in flight otherwise (there is more work than one
   * pass took).
   */
  nudge(): void {
    if (this.stopped || !this.started) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.passing = true;
      this.pass = this.run()
        .then(() => undefined)
        .catch((err) => this.settings.log.warn({ err, job: this.settings.name }, 'job pass failed; will retry'))
        .finally(() => {
          this.passing = false;
          const next = this.again ? 0 : this.settings.intervalMs;
          this.again = false;
          this.schedule(next);
        });
    }, delayMs);
    this.timer.unref();
  }

  /** No pass starts after this; resolves once the pass in flight, if any, has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.pass;
  }
}
