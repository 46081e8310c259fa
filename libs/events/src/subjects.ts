// Core NATS subjects shared by more than one service (not JetStream: nothing
// is stored; a subscriber that is away misses them and knows it).

/**
 * The ledger announces here, as a JSON array of workspace ids, whose credits
 * changed in committed writes; gateways drop their cached credit views.
 */
export const creditsChangedSubject = (namespace: string) => `${namespace}ledger.credits.changed`;

/**
 * Every browser host announces here, every couple of seconds, where it is and
 * how many CDP sessions it has room for (JSON `HostAnnouncement`); gateways
 * place new sessions by it, and a host that stops announcing gets none.
 */
export const browserHostsSubject = (namespace: string) => `${namespace}browser.hosts`;

export interface HostAnnouncement {
  hostId: string;
  /** Its gRPC address, as the gateway reaches it. */
  address: string;
  capacity: number;
  live: number;
  /** Its live sessions, so a reconnect finds the host that has the browser. */
  sessions: string[];
  /** Milliseconds until the next announcement; a gateway forgets the host after three missed. */
  everyMs: number;
  /** The host is stopping: gateways forget it at once instead of after three missed announcements. */
  leaving?: boolean;
}
