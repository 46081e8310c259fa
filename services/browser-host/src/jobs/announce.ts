// The host announces where it is and how much room it has (libs/events
// browserHostsSubject), so gateways place sessions on hosts with room; a host
// that stops says it is leaving, one that dies stops announcing, and neither
// gets new sessions.
import { randomUUID } from 'node:crypto';
import { browserHostsSubject, type HostAnnouncement, type NatsLink } from '@wap/events';
import type { Logger } from '@wap/log';
import { PeriodicJob } from '@wap/service';
import type { SessionManager } from '../sessions/manager.js';

export const ANNOUNCE_EVERY_MS = 2_000;

export function hostAnnouncer(
  nats: NatsLink,
  namespace: string,
  address: string,
  sessions: SessionManager,
  log: Logger,
) {
  const hostId = randomUUID();
  const subject = browserHostsSubject(namespace);
  const announce = (leaving = false) => {
    const message: HostAnnouncement = {
      hostId,
      address,
      capacity: sessions.capacity,
      live: sessions.live,
      sessions: sessions.ids(),
      everyMs: ANNOUNCE_EVERY_MS,
      ...(leaving && { leaving }),
    };
    nats.nc.publish(subject, JSON.stringify(message));
  };
  const job = new PeriodicJob(
    { name: 'host announcement', intervalMs: ANNOUNCE_EVERY_MS, log, immediately: true },
    async () => announce(),
  );
  return {
    hostId,
    announce,
    start: () => job.start(),
    /** Stops announcing and says the host is leaving, so gateways send it nothing more. */
    stop: async () => {
      await job.stop();
      announce(true);
      await nats.nc.flush().catch(() => undefined);
    },
  };
}
