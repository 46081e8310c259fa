/** What the site saw: the crawl tests assert politeness and de-duplication from these. */
export class SiteStats {
  /** Requests per request target (path and query, as received). */
  readonly requests = new Map<string, number>();
  /** The most requests in flight at once, per Host header. */
  readonly maxConcurrentByHost = new Map<string, number>();
  /** When each request arrived (ms since the epoch) and its target, oldest first: for delay checks. */
  readonly arrivals: { target: string; at: number }[] = [];
  total = 0;
  concurrent = 0;
  maxConcurrent = 0;
  readonly #inFlightByHost = new Map<string, number>();

  /** Requests for a target, by exact target or by pathname when `path` has no query. */
  count(path: string): number {
    if (path.includes('?')) return this.requests.get(path) ?? 0;
    let n = 0;
    for (const [target, c] of this.requests) if (target === path || target.startsWith(`${path}?`)) n += c;
    return n;
  }

  reset(): void {
    this.requests.clear();
    this.maxConcurrentByHost.clear();
    this.arrivals.length = 0;
    this.total = 0;
    this.maxConcurrent = this.concurrent;
  }

  /** Records a request; the returned function marks it finished. */
  begin(target: string, host: string): () => void {
    this.requests.set(target, (this.requests.get(target) ?? 0) + 1);
    this.arrivals.push({ target, at: Date.now() });
    this.total++;
    this.concurrent++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.concurrent);
    const inHost = (this.#inFlightByHost.get(host) ?? 0) + 1;
    this.#inFlightByHost.set(host, inHost);
    this.maxConcurrentByHost.set(host, Math.max(this.maxConcurrentByHost.get(host) ?? 0, inHost));
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.concurrent--;
      this.#inFlightByHost.set(host, (this.#inFlightByHost.get(host) ?? 1) - 1);
    };
  }
}
