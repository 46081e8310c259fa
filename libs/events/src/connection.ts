import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@wap/log';

/** A NATS connection that reconnects forever and knows whether it is up right now. */
export interface NatsLink {
  nc: NatsConnection;
  isConnected(): boolean;
  /** Flushes what is buffered, stops consumers gracefully and closes. */
  drain(): Promise<void>;
}

/**
 * `url` is one server or a cluster's, separated by commas (NATS_URL): the client
 * connects to any, learns the rest from the cluster, and reconnects to another when
 * its server goes.
 */
export async function connectNats(settings: { url: string; name: string; log: Logger }): Promise<NatsLink> {
  const nc = await connect({
    servers: settings.url.split(',').map((server) => server.trim()),
    name: settings.name,
    // A service outlives NATS restarts: it never gives up, it reports not-ready instead.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: true,
    pingInterval: 5_000,
    maxPingOut: 2,
  });
  let connected = true;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'staleConnection') {
        connected = false;
        settings.log.warn({ nats: status.type }, 'nats disconnected');
      } else if (status.type === 'reconnect') {
        connected = true;
        settings.log.info('nats reconnected');
      } else if (status.type === 'close') {
        connected = false;
      }
    }
  })();
  return {
    nc,
    isConnected: () => connected && !nc.isClosed(),
    drain: async () => {
      if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
    },
  };
}
