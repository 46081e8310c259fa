import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@wap/log';

/** A NATS connection that reconnects forever and knows whether it is up right now. */
export interface NatsLink {
  nc: NatsConnection;
  isConnected(): boolean;
  /** Flushes what is buffered, stops consumers gracefully and closes. */
  drain(): Promise<void>;
}

/** Where to connect and as whom, as nats.js takes it. */
export interface NatsServers {
  servers: string[];
  user?: string;
  pass?: string;
  token?: string;
}

/**
 * NATS_URL as nats.js takes it: the servers without their credentials, and the
 * credentials apart (nats.js ignores a URL's userinfo). `user:password@` is a
 * user and password, a user alone a token, as NATS's own clients read them; the
 * first server that names credentials names them for all. Percent-encoding is decoded.
 */
export function natsServers(url: string): NatsServers {
  const out: NatsServers = { servers: [] };
  for (const written of url.split(',').map((server) => server.trim())) {
    if (!URL.canParse(written)) {
      out.servers.push(written);
      continue;
    }
    const parsed = new URL(written);
    if (parsed.username !== '' && out.user === undefined && out.token === undefined) {
      const user = decodeURIComponent(parsed.username);
      if (parsed.password === '') out.token = user;
      else Object.assign(out, { user, pass: decodeURIComponent(parsed.password) });
    }
    parsed.username = '';
    parsed.password = '';
    out.servers.push(parsed.toString());
  }
  return out;
}

/**
 * `url` is one server or a cluster's, separated by commas (NATS_URL), with the
 * credentials the server asks for (natsServers): the client connects to any,
 * learns the rest from the cluster, and reconnects to another when its server goes.
 */
export async function connectNats(settings: { url: string; name: string; log: Logger }): Promise<NatsLink> {
  const nc = await connect({
    ...natsServers(settings.url),
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
