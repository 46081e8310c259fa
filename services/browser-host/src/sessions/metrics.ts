// How busy this host's browsers are, for Prometheus and an autoscaler reading
// it: live CDP sessions, the capacity offered, and their ratio. Read from the
// SessionManager when scraped (docs/decisions/0013-browser-hosts-scale-out.md).
import { Gauge, type Registry } from '@wap/service';
import { SESSION_GAUGES } from './gauges.js';
import type { SessionManager } from './manager.js';

/** Live sessions over capacity; a host offering no room (it is stopping) is full. */
export const busyRatio = (live: number, capacity: number): number => (capacity > 0 ? live / capacity : 1);

export function sessionGauges(registry: Registry, sessions: SessionManager): void {
  new Gauge({
    name: SESSION_GAUGES.live,
    help: 'Live CDP sessions on this browser host.',
    registers: [registry],
    collect() {
      this.set(sessions.live);
    },
  });
  new Gauge({
    name: SESSION_GAUGES.capacity,
    help: 'CDP sessions this browser host takes (SESSION_CAPACITY; 0 while it stops).',
    registers: [registry],
    collect() {
      this.set(sessions.capacity);
    },
  });
  new Gauge({
    name: SESSION_GAUGES.busyRatio,
    help: 'Live sessions over capacity: 0 idle, 1 full (a stopping host counts as full).',
    registers: [registry],
    collect() {
      this.set(busyRatio(sessions.live, sessions.capacity));
    },
  });
}
