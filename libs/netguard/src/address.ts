import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { type AddressClass, classOf, embeddedIPv4 } from './ranges.js';

/**
 * Ranges a deployment lets through the guard, for local test sites. Built once
 * from configuration; production builds it from nothing, which allows nothing.
 */
export class AllowList {
  readonly cidrs: readonly string[];
  readonly #ranges: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];

  /** Throws TypeError on a malformed entry: a typo in the setting must stop start-up, not widen or narrow it silently. */
  constructor(cidrs: readonly string[] = []) {
    this.cidrs = cidrs.map((c) => c.trim()).filter((c) => c !== '');
    this.#ranges = this.cidrs.map(parseRange);
  }

  /** From a comma- or space-separated setting such as `127.0.0.0/8, ::1/128`. */
  static parse(setting: string | undefined): AllowList {
    return new AllowList((setting ?? '').split(/[\s,]+/));
  }

  get empty(): boolean {
    return this.#ranges.length === 0;
  }

  has(addr: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    const candidates = addr.kind() === 'ipv6' ? [addr, ...embeddedIPv4(addr as ipaddr.IPv6)] : [addr];
    return candidates.some((a) => this.#ranges.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits)));
  }
}

const NOTHING = new AllowList();

/** `a.b.c.d/n`, `v6/n`, or a single address. */
function parseRange(cidr: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const [ip = '', bits, ...rest] = cidr.split('/');
  const addr = parseStrict(ip);
  const max = addr?.kind() === 'ipv4' ? 32 : 128;
  const n = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN;
  if (!addr || rest.length > 0 || !(n >= 0 && n <= max)) {
    throw new TypeError(`AllowList: not a CIDR range: ${JSON.stringify(cidr)}`);
  }
  return [addr, n];
}

/**
 * Parses only the canonical textual forms DNS answers and WHATWG URL produce.
 * ipaddr.js alone would also read `0x7f.1` or `2130706433`; such forms must
 * have been normalised by the URL parser before they reach the guard.
 */
function parseStrict(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const family = isIP(bare.split('%')[0] ?? '');
  if (family === 0) return undefined;
  try {
    return ipaddr.parse(family === 6 ? dottedTailToHex(bare) : bare);
  } catch {
    return undefined;
  }
}

// ipaddr.js reads any `::a.b.c.d` as IPv4-mapped, but `::127.0.0.1` is the
// IPv4-compatible ::7f00:1, a different address; hex keeps it what it is.
function dottedTailToHex(ip: string): string {
  return ip.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) => {
    const hex = (hi: string, lo: string) => ((Number(hi) << 8) | Number(lo)).toString(16);
    return `${hex(a, b)}:${hex(c, d)}`;
  });
}

/** What kind of address this is; text that is not an IP address is `invalid`. */
export function classifyAddress(ip: string): AddressClass {
  const addr = parseStrict(ip);
  return addr ? classOf(addr) : 'invalid';
}

/**
 * True when a connection to `ip` must be refused. Fails closed: text that is
 * not an address is blocked. The allow-list opens its ranges, never a cloud
 * metadata endpoint.
 */
export function isBlockedAddress(ip: string, allow: AllowList = NOTHING): boolean {
  const addr = parseStrict(ip);
  if (!addr) return true;
  const cls = classOf(addr);
  if (cls === 'public') return false;
  if (cls === 'metadata') return true;
  return !allow.has(addr);
}
