import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import { type AllowList, classifyAddress, isBlockedAddress } from './address.js';
import type { AddressClass } from './ranges.js';

/** Answers a name with every address it has; the injection point for tests and custom DNS. */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

/** The signature `net.connect`, `tls.connect` and undici's connector call as `lookup`. */
export type LookupFunction = (
  hostname: string,
  options: LookupOptions,
  callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

export const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, order: 'verbatim' });

/**
 * A connection the guard refused. Node-shaped like the errors of `dns.lookup`
 * (a `code`, the `hostname`), because it travels through socket error paths;
 * the caller that knows the URL turns it into its `page_unreachable`.
 */
export class BlockedAddressError extends Error {
  override readonly name = 'BlockedAddressError';
  readonly code = 'ERR_BLOCKED_ADDRESS';
  constructor(
    readonly address: string,
    readonly addressClass: AddressClass,
    readonly hostname?: string,
  ) {
    super(`connection to a ${addressClass} address refused${hostname ? ` (${hostname})` : ''}: ${address}`);
  }
}

export function isBlockedAddressError(err: unknown): err is BlockedAddressError {
  return err instanceof Error && (err as { code?: unknown }).code === 'ERR_BLOCKED_ADDRESS';
}

/** Throws BlockedAddressError when `ip` may not be connected to. */
export function assertAllowedAddress(ip: string, allow?: AllowList, hostname?: string): void {
  if (isBlockedAddress(ip, allow)) throw new BlockedAddressError(ip, classifyAddress(ip), hostname);
}

export interface GuardedLookupOptions {
  allow?: AllowList;
  resolve?: Resolver;
}

/**
 * A `dns.lookup`-compatible function that resolves the name and refuses it
 * when any of its addresses is blocked. It runs at connect time for every new
 * socket, so the address checked is the address connected to: a name that
 * answers public once and private next (DNS rebinding) is caught on the second
 * connection. Refusing on any blocked answer, not just the one picked, keeps
 * a mixed answer from winning through happy-eyeballs fallback.
 */
export function guardedLookup({ allow, resolve = systemResolver }: GuardedLookupOptions = {}): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (answers) => {
        const blocked = answers.find((a) => isBlockedAddress(a.address, allow));
        if (blocked) {
          callback(new BlockedAddressError(blocked.address, classifyAddress(blocked.address), hostname), []);
          return;
        }
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
        const usable = family === 0 ? answers : answers.filter((a) => a.family === family);
        const first = usable[0];
        if (!first) {
          callback(notFound(hostname), []);
        } else if (options.all) {
          callback(
            null,
            usable.map((a) => ({ address: a.address, family: a.family })),
          );
        } else {
          callback(null, first.address, first.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, []),
    );
  };
}

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
    code: 'ENOTFOUND',
    syscall: 'getaddrinfo',
    hostname,
  });
}
