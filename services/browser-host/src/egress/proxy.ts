import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, chownSync } from 'node:fs';
import { Agent, type AgentOptions, type IncomingMessage } from 'node:http';
import { createServer as createNetServer, isIP, type Server as NetServer, type Socket } from 'node:net';
import { type AllowList, classifyAddress, guardedLookup, isBlockedAddress, isBlockedAddressError } from '@wap/netguard';
import { RequestError, Server } from 'proxy-chain';
import { loopbackPeerUid } from './peer-uid.js';

/**
 * Why the egress could not reach a host, in the words of the fetch engine's
 * `page_unreachable` reasons (libs/fetch/src/failure.ts), so both engines say
 * the same of the same failure.
 */
export type EgressFailureReason = 'dns' | 'connect' | 'timeout' | 'tls';

/** What one browser context sent through the egress. */
export interface EgressTally {
  bytes: number;
  blocked: string[];
  /** Hosts the egress could not reach (the browser sees only the proxy's error answer, or a failed tunnel). */
  failed: { host: string; reason: EgressFailureReason }[];
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'ENODATA', 'ESERVFAIL', 'ENOTIMP']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT']);

/** A network error of the egress's own connection as a reason; as the fetch engine reads the same codes. */
export function egressFailureReason(err: unknown): EgressFailureReason {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  if (DNS_CODES.has(code)) return 'dns';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  if (/^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)/.test(code))
    return 'tls';
  return 'connect';
}

/** An agent for one forwarded HTTP request that reports its connection's failure. */
class ReportingAgent extends Agent {
  constructor(
    private readonly report: (err: Error) => void,
    options: AgentOptions = {},
  ) {
    super({ ...options, keepAlive: false });
  }

  override createConnection(...args: Parameters<Agent['createConnection']>) {
    const socket = super.createConnection(...args) as Socket;
    socket.once('error', this.report);
    return socket;
  }
}

/**
 * Where a session's recorder extension posts its chunks: a host name this
 * proxy answers itself (it never leaves the machine), for a request carrying
 * the extension's token (docs/sessions.md).
 */
export interface RecordingIngest {
  host: string;
  header: string;
  token: string;
  accept(body: Buffer): void;
}

/** A chunk larger than this is refused (rrweb's full snapshots of very large pages run to a few MB). */
export const MAX_RECORDING_POST = 16 * 1024 * 1024;

function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.destroy();
        resolve(undefined);
      } else parts.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(parts)));
    request.on('error', reject);
  });
}

interface Tenant {
  password: string;
  tally: EgressTally;
  connections: Set<number>;
}

/** The recording host's answer: the chunk taken (204), or refused without a word of why (403). */
function recordingAnswer(ingest: RecordingIngest, request: IncomingMessage, isHttp: boolean) {
  const given = request.headers[ingest.header];
  const expected = Buffer.from(ingest.token);
  const ok =
    isHttp &&
    request.method === 'POST' &&
    typeof given === 'string' &&
    given.length === ingest.token.length &&
    timingSafeEqual(Buffer.from(given), expected);
  if (!ok) throw new RequestError('Forbidden', 403);
  return {
    customResponseFunction: async () => {
      const body = await readBody(request, MAX_RECORDING_POST);
      if (!body) return { statusCode: 413, body: '' };
      ingest.accept(body);
      return { statusCode: 204, body: '' };
    },
  };
}

/**
 * The one way out for every browser: a local forward proxy. Each browser
 * context authenticates with its own credentials, so bytes and refusals are
 * counted per render; every connection's address is checked by the same guard
 * as the fetch engine, at connect time (DNS rebinding cannot slip through).
 */
export class EgressProxy {
  private readonly tenants = new Map<string, Tenant>();
  private readonly server: Server;
  /** Whether each client connection is the expected user's, asked of the kernel once per connection. */
  private readonly peers = new WeakMap<Socket, boolean>();
  private readonly socketPath: string | undefined;
  private readonly socketUid: number | undefined;
  private unix: NetServer | undefined;

  /**
   * `owner`: the proxy serves one browser alone (a CDP session, whose pages the
   * client opens, so no credentials can be given per page): requests without
   * credentials count to the owner's tally. Without it every request must name
   * a tenant opened with `open()`.
   */
  constructor(
    private readonly allow: AllowList,
    options: {
      owner?: boolean;
      recording?: RecordingIngest;
      /**
       * An exit (docs/profiles.md): every request, once past the guard, is
       * chained to this upstream proxy (http:// or socks5://). If it fails, the
       * request fails: there is no way out but through it.
       */
      upstream?: string;
      /**
       * The OS user of the one browser it serves (sessions/os-users.ts): a
       * connection another user opened is refused, whatever it sends.
       */
      peerUid?: number;
      /**
       * A Unix socket it listens on as well (sessions/network-wall.ts): the
       * one way out of a walled browser's network namespace, given to that
       * browser's user (`peerUid`) alone.
       */
      socket?: string;
    } = {},
  ) {
    this.socketPath = options.socket;
    this.socketUid = options.peerUid;
    if (options.owner)
      this.tenants.set('', { password: '', tally: { bytes: 0, blocked: [], failed: [] }, connections: new Set() });
    this.server = new Server({
      port: 0,
      host: '127.0.0.1',
      verbose: false,
      prepareRequestFunction: ({ username, password, hostname, connectionId, request, isHttp }) => {
        if (options.peerUid !== undefined && !this.fromUid(request.socket, options.peerUid))
          throw new RequestError("Not this proxy's browser", 403);
        const tenant = this.tenants.get(username ?? '');
        if (!tenant || tenant.password !== (password ?? '')) return { requestAuthentication: true };
        if (hostname === options.recording?.host) return recordingAnswer(options.recording, request, isHttp);
        tenant.connections.add(connectionId);
        const refuse = (address: string) => {
          tenant.tally.blocked.push(`${hostname} (${classifyAddress(address)} ${address})`);
        };
        const failed = (reason: EgressFailureReason) => {
          if (!tenant.tally.failed.some((f) => f.host === hostname && f.reason === reason))
            tenant.tally.failed.push({ host: hostname, reason });
        };
        // A literal address never goes through lookup: check it here.
        const literal = hostname.replace(/^\[|\]$/g, '');
        if (isIP(literal) && isBlockedAddress(literal, this.allow)) {
          refuse(literal);
          throw new RequestError('Blocked by the egress guard', 403);
        }
        if (isIP(literal)) this.remember(hostname, literal);
        const lookup = guardedLookup({ allow: this.allow });
        if (options.upstream) return this.chained(hostname, literal, lookup, refuse, failed, options.upstream);
        return {
          dnsLookup: ((host: string, options: object, callback: (err: Error | null, ...rest: unknown[]) => void) =>
            lookup(host, options as never, (err, ...rest) => {
              if (isBlockedAddressError(err)) refuse(err.address);
              else if (err) failed('dns');
              else this.remember(hostname, rest[0]);
              callback(err, ...rest);
            })) as never,
          // Plain HTTP is forwarded: a connection that fails is answered with an error status
          // (404 for a name that does not resolve), so the failure itself is kept here.
          httpAgent: new ReportingAgent((err) => {
            if (!isBlockedAddressError(err) && !DNS_CODES.has(String((err as { code?: unknown }).code))) {
              failed(egressFailureReason(err));
            }
          }),
        };
      },
    });
    this.server.on('connectionClosed', ({ connectionId, stats }) => {
      for (const tenant of this.tenants.values()) {
        if (tenant.connections.delete(connectionId) && stats) {
          tenant.tally.bytes += (stats.trgTxBytes ?? 0) + (stats.trgRxBytes ?? 0);
        }
      }
    });
  }

  private fromUid(socket: Socket, uid: number): boolean {
    let known = this.peers.get(socket);
    if (known === undefined) {
      known = loopbackPeerUid(socket.remotePort ?? 0, this.server.port) === uid;
      this.peers.set(socket, known);
    }
    return known;
  }

  /**
   * A request through an exit: the name is resolved here and refused as any
   * other would be if it is private, then the exit connects (and resolves
   * again from where it is).
   */
  private async chained(
    hostname: string,
    literal: string,
    lookup: ReturnType<typeof guardedLookup>,
    refuse: (address: string) => void,
    failed: (reason: EgressFailureReason) => void,
    upstream: string,
  ) {
    if (!isIP(literal)) {
      const address = await new Promise<string>((resolve, reject) =>
        lookup(hostname, {}, (err, answer) => (err ? reject(err) : resolve(String(answer)))),
      ).catch((err: unknown) => {
        if (isBlockedAddressError(err)) {
          refuse(err.address);
          throw new RequestError('Blocked by the egress guard', 403);
        }
        failed('dns');
        throw new RequestError('Name not resolved', 502);
      });
      this.remember(hostname, address);
    }
    return { upstreamProxyUrl: upstream, ignoreUpstreamProxyCertificate: false };
  }

  /** The address each host name last resolved to, as this proxy connected (a network log's remote address). */
  private readonly resolved = new Map<string, string>();

  private remember(hostname: string, answer: unknown): void {
    const first = Array.isArray(answer) ? (answer[0] as { address?: string } | undefined)?.address : answer;
    if (typeof first !== 'string') return;
    if (this.resolved.size >= 10_000) this.resolved.clear();
    this.resolved.set(hostname.replace(/^\[|\]$/g, ''), first);
  }

  /** The address this proxy last connected to for `hostname`, when it has. */
  addressOf(hostname: string): string | undefined {
    return this.resolved.get(hostname.replace(/^\[|\]$/g, ''));
  }

  async start(): Promise<void> {
    await this.server.listen();
    const socketPath = this.socketPath;
    if (socketPath === undefined) return;
    // Its connections are its browser's: the socket's mode lets no other user open it.
    const unix = createNetServer((connection) => {
      this.peers.set(connection, true);
      // proxy-chain drops a connection without a remote address, as a Unix socket's is.
      Object.defineProperty(connection, 'remoteAddress', { value: 'unix' });
      this.server.server.emit('connection', connection);
    });
    this.unix = unix;
    await new Promise<void>((resolve, reject) => {
      unix.once('error', reject);
      unix.listen(socketPath, () => resolve());
    });
    chmodSync(socketPath, 0o600);
    if (this.socketUid !== undefined) chownSync(socketPath, this.socketUid, this.socketUid);
  }

  get url(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }

  /** Credentials for one browser context; `close` them to read its final tally. */
  open(): { username: string; password: string; close(): EgressTally } {
    const username = `ctx${randomBytes(8).toString('hex')}`;
    const password = randomBytes(16).toString('hex');
    const tenant: Tenant = { password, tally: { bytes: 0, blocked: [], failed: [] }, connections: new Set() };
    this.tenants.set(username, tenant);
    return {
      username,
      password,
      close: () => {
        for (const id of tenant.connections) {
          const stats = this.server.getConnectionStats(id);
          if (stats) tenant.tally.bytes += (stats.trgTxBytes ?? 0) + (stats.trgRxBytes ?? 0);
          this.server.closeConnection(id);
        }
        tenant.connections.clear();
        this.tenants.delete(username);
        return tenant.tally;
      },
    };
  }

  /** The owner's tally so far (a proxy made with `owner`), open connections included. */
  ownerTally(): EgressTally {
    const owner = this.tenants.get('');
    if (!owner) throw new Error('EgressProxy: made without an owner');
    let open = 0;
    for (const id of owner.connections) {
      const stats = this.server.getConnectionStats(id);
      if (stats) open += (stats.trgTxBytes ?? 0) + (stats.trgRxBytes ?? 0);
    }
    return { ...owner.tally, bytes: owner.tally.bytes + open };
  }

  async stop(): Promise<void> {
    this.unix?.close();
    await this.server.close(true);
  }
}
