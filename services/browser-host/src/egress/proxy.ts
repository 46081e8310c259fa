import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { type AllowList, classifyAddress, guardedLookup, isBlockedAddress, isBlockedAddressError } from '@wap/netguard';
import { RequestError, Server } from 'proxy-chain';

/** What one browser context sent through the egress. */
export interface EgressTally {
  bytes: number;
  blocked: string[];
}

interface Tenant {
  password: string;
  tally: EgressTally;
  connections: Set<number>;
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

  constructor(private readonly allow: AllowList) {
    this.server = new Server({
      port: 0,
      host: '127.0.0.1',
      verbose: false,
      prepareRequestFunction: ({ username, password, hostname, connectionId }) => {
        const tenant = this.tenants.get(username);
        if (!tenant || tenant.password !== password) return { requestAuthentication: true };
        tenant.connections.add(connectionId);
        const refuse = (address: string) => {
          tenant.tally.blocked.push(`${hostname} (${classifyAddress(address)} ${address})`);
        };
        // A literal address never goes through lookup: check it here.
        const literal = hostname.replace(/^\[|\]$/g, '');
        if (isIP(literal) && isBlockedAddress(literal, this.allow)) {
          refuse(literal);
          throw new RequestError('Blocked by the egress guard', 403);
        }
        const lookup = guardedLookup({ allow: this.allow });
        return {
          dnsLookup: ((host: string, options: object, callback: (err: Error | null, ...rest: unknown[]) => void) =>
            lookup(host, options as never, (err, ...rest) => {
              if (isBlockedAddressError(err)) refuse(err.address);
              callback(err, ...rest);
            })) as never,
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

  async start(): Promise<void> {
    await this.server.listen();
  }

  get url(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }

  /** Credentials for one browser context; `close` them to read its final tally. */
  open(): { username: string; password: string; close(): EgressTally } {
    const username = `ctx${randomBytes(8).toString('hex')}`;
    const password = randomBytes(16).toString('hex');
    const tenant: Tenant = { password, tally: { bytes: 0, blocked: [] }, connections: new Set() };
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

  async stop(): Promise<void> {
    await this.server.close(true);
  }
}
