// The outbox's sender (docs/monitors.md, "Delivery"): pending notifications
// claimed with SKIP LOCKED by whichever replica polls first and sent by
// jobs/delivery-send.ts, which is loaded with the first one: a monitor that
// has sent nothing holds no HTTP client.
import { PeriodicJob } from '@wap/service';
import type { DeliveryDeps } from './delivery-send.js';

export type { DeliveryDeps };

const LEASE_MS = 60_000;

export const deliverySender = (deps: DeliveryDeps, pollMs: number) =>
  new PeriodicJob({ name: 'monitor deliveries', intervalMs: pollMs, log: deps.log, immediately: true }, async () => {
    for (;;) {
      const claimed = await deps.deliveries.claim(16, LEASE_MS);
      if (claimed.length === 0) return;
      const { deliverOnce } = await import('./delivery-send.js');
      await Promise.all(claimed.map((d) => deliverOnce(deps, d)));
    }
  });
