/**
 * How many pages of one host this worker fetches at once. The database
 * enforces the limit across workers; this gate keeps one worker from taking
 * messages it would only hand back ("host busy, try later"), which cost a
 * round trip to Postgres and to JetStream each and a quarter of a crawl's time.
 */
export class HostGates {
  private readonly gates = new Map<string, { active: number; waiting: (() => void)[] }>();

  /**
   * Waits for a free place for `key` (at most `max` at once); resolves to the
   * function that frees it, or to undefined at once when `max` others already
   * wait: a busy host must not hold every message slot of the worker while
   * other crawls' messages queue behind it.
   */
  async enter(key: string, max: number, whileWaiting?: () => void): Promise<(() => void) | undefined> {
    let gate = this.gates.get(key);
    if (!gate) {
      gate = { active: 0, waiting: [] };
      this.gates.set(key, gate);
    }
    const g = gate;
    if (g.active >= max) {
      if (g.waiting.length >= max) return undefined;
      const keepalive = whileWaiting ? setInterval(whileWaiting, 5_000) : undefined;
      try {
        await new Promise<void>((resolve) => g.waiting.push(resolve));
      } finally {
        clearInterval(keepalive);
      }
    } else g.active++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = g.waiting.shift();
      if (next)
        next(); // the place passes to the next waiter as is
      else if (--g.active === 0) this.gates.delete(key);
    };
  }

  /** Places taken or waited for, for tests. */
  size(key: string): { active: number; waiting: number } {
    const g = this.gates.get(key);
    return { active: g?.active ?? 0, waiting: g?.waiting.length ?? 0 };
  }
}
