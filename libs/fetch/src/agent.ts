import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { AllowList, assertAllowedAddress, guardedLookup, type Resolver } from '@wap/netguard';
import { Agent, buildConnector } from 'undici';

export interface FetchAgentOptions {
  /** Ranges let through the address guard, for local test sites only; empty (nothing) by default. */
  allow?: AllowList;
  /** DNS for every new connection; tests inject answers here. Default: the system resolver. */
  resolve?: Resolver;
  /** Open connections per origin: the politeness ceiling for one host. Default 6, like browsers. */
  connectionsPerOrigin?: number;
  /** TCP plus TLS handshake budget. Default 10 s. */
  connectTimeoutMs?: number;
  /** Idle keep-alive sockets are closed after this, whatever longer the server offers. Default 4 s. */
  keepAliveTimeoutMs?: number;
  /** CA certificates (PEM) trusted besides Node's own roots: a private CA, or a test's. */
  extraCa?: string[];
}

/** An undici dispatcher whose every connection passes the address guard, and the allow-list it applies. */
export interface FetchAgent {
  readonly dispatcher: Agent;
  readonly allow: AllowList;
  close(): Promise<void>;
}

/**
 * Builds the one connection pool fetches go through. The guard sits in the
 * connector, so it runs for every socket undici opens, whatever asked for it:
 * page, redirect hop, robots.txt or sitemap.
 */
export function createFetchAgent(options: FetchAgentOptions = {}): FetchAgent {
  const allow = options.allow ?? new AllowList();
  const base = buildConnector({
    lookup: guardedLookup({ allow, resolve: options.resolve }),
    timeout: options.connectTimeoutMs ?? 10_000,
    allowH2: false,
    ...(options.extraCa?.length && { ca: [...rootCertificates, ...options.extraCa] }),
  });
  const connect: buildConnector.connector = (opts, callback) => {
    const host = opts.hostname.startsWith('[') ? opts.hostname.slice(1, -1) : opts.hostname;
    try {
      // A literal address never reaches the lookup, so it is checked here.
      if (isIP(host) !== 0) assertAllowedAddress(host, allow, host);
    } catch (err) {
      callback(err as Error, null);
      return;
    }
    base(opts, (err, socket) => {
      if (err || !socket) {
        callback(err ?? new Error('connect failed'), null);
        return;
      }
      // Belt and braces: the peer actually connected to, whatever resolved it.
      const remote = socket.remoteAddress;
      try {
        if (remote) assertAllowedAddress(remote, allow, host);
      } catch (blocked) {
        socket.destroy();
        callback(blocked as Error, null);
        return;
      }
      callback(null, socket);
    });
  };
  const dispatcher = new Agent({
    connect,
    connections: options.connectionsPerOrigin ?? 6,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
    keepAliveMaxTimeout: options.keepAliveTimeoutMs ?? 4_000,
    allowH2: false,
  });
  return { dispatcher, allow, close: () => dispatcher.close() };
}

let shared: FetchAgent | undefined;

/** The process-wide agent with no allow-list: what production uses. */
export function defaultFetchAgent(): FetchAgent {
  shared ??= createFetchAgent();
  return shared;
}
