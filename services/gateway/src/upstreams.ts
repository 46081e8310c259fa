import { health } from '@wap/proto';
import { type Closable, createClient, type ServiceClient } from '@wap/rpc';
import type { GatewayConfig } from './config.js';

type HealthClient = ServiceClient<(typeof health.Health)['method']> & Closable;

/** One gRPC channel per service behind the gateway. */
export class Upstreams {
  readonly health: Record<string, HealthClient>;

  constructor(config: GatewayConfig) {
    const addresses: Record<string, string> = {
      'billing-ledger': config.BILLING_LEDGER_ADDR,
      crawl: config.CRAWL_ADDR,
      agent: config.AGENT_ADDR,
      monitor: config.MONITOR_ADDR,
      'session-recorder': config.SESSION_RECORDER_ADDR,
      'browser-host': config.BROWSER_HOST_ADDR,
    };
    this.health = Object.fromEntries(
      Object.entries(addresses).map(([name, address]) => [name, createClient(health.Health, address)]),
    );
  }

  /** Each service's own verdict on its readiness, asked in parallel. */
  async readiness(timeoutMs = 1_000): Promise<Record<string, boolean>> {
    const serving = health.HealthCheckResponse_ServingStatus.SERVING;
    const entries = await Promise.all(
      Object.entries(this.health).map(async ([name, client]) => {
        const ok = await client.check({ service: '' }, { timeoutMs }).then(
          (r) => r.status === serving,
          () => false,
        );
        return [name, ok] as const;
      }),
    );
    return Object.fromEntries(entries);
  }

  close(): void {
    for (const client of Object.values(this.health)) client.close();
  }
}
