import { ApiError } from '@wap/errors';
import { health } from '@wap/proto';
import type { ServiceImpl } from './types.js';

const { HealthCheckResponse_ServingStatus: ServingStatus } = health;
type ServingStatus = health.HealthCheckResponse_ServingStatus;

/** A dependency the service cannot serve without (its database, NATS). */
export interface ReadinessProbe {
  name: string;
  check(): Promise<boolean>;
}

/**
 * grpc.health.v1 for one service. The overall status ("" service) is SERVING
 * only while every probe passes; after `shutdown()` it stays NOT_SERVING so
 * load balancers drain the process before it exits.
 */
export class HealthService {
  private stopping = false;
  private cached: { at: number; status: ServingStatus; failing: string[] } | undefined;
  private readonly watchers = new Set<() => void>();

  constructor(
    readonly serviceName: string,
    private readonly probes: ReadinessProbe[],
    /** Probes run at most this often, whatever the rate of Check calls. */
    private readonly cacheMs = 500,
  ) {}

  /** Runs the probes (or reuses a fresh result) and returns the overall status. */
  async evaluate(): Promise<{ status: ServingStatus; failing: string[] }> {
    if (this.stopping) return { status: ServingStatus.NOT_SERVING, failing: ['shutting down'] };
    if (this.cached && performance.now() - this.cached.at < this.cacheMs) return this.cached;
    const results = await Promise.all(
      this.probes.map(async (probe) => ({ name: probe.name, ok: await probe.check().catch(() => false) })),
    );
    const failing = results.filter((r) => !r.ok).map((r) => r.name);
    const status = failing.length === 0 ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    const changed = this.cached?.status !== status;
    this.cached = { at: performance.now(), status, failing };
    if (changed) for (const wake of this.watchers) wake();
    return this.cached;
  }

  shutdown(): void {
    this.stopping = true;
    for (const wake of this.watchers) wake();
  }

  private async statusOf(service: string): Promise<ServingStatus> {
    if (service !== '' && service !== this.serviceName) throw new ApiError('not_found', { service });
    return (await this.evaluate()).status;
  }

  readonly impl: ServiceImpl<(typeof health.Health)['method']> = {
    check: async (request) => ({ status: await this.statusOf(request.service) }),
    list: async () => {
      const status = (await this.evaluate()).status;
      return { statuses: { '': { status }, [this.serviceName]: { status } } };
    },
    watch: (request, ctx) => this.watchStream(request.service, ctx.signal),
  };

  private async *watchStream(service: string, signal: AbortSignal) {
    if (service !== '' && service !== this.serviceName) {
      yield { status: ServingStatus.SERVICE_UNKNOWN };
      return;
    }
    let last: ServingStatus | undefined;
    while (!signal.aborted) {
      const status = (await this.evaluate()).status;
      if (status !== last) {
        last = status;
        yield { status };
      }
      if (this.stopping) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.watchers.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, 1_000);
        this.watchers.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }
}
