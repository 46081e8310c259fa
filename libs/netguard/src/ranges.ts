import ipaddr from 'ipaddr.js';

/** Why an address is not a public internet host; `public` is the only class a fetch may reach unasked. */
export type AddressClass =
  | 'public'
  | 'metadata'
  | 'loopback'
  | 'private'
  | 'linkLocal'
  | 'cgnat'
  | 'multicast'
  | 'unspecified'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'uniqueLocal'
  | 'invalid';

type Range = readonly [ipaddr.IPv4 | ipaddr.IPv6, number, AddressClass];

function table(rows: readonly (readonly [string, AddressClass])[]): readonly Range[] {
  return rows.map(([cidr, cls]) => {
    const [addr, bits] = ipaddr.parseCIDR(cidr);
    return [addr, bits, cls] as const;
  });
}

// Cloud instance-metadata endpoints. Listed before the ranges that contain them
// so they are named for what they are, and so the allow-list can never open
// them: a test setting that allows 169.254.0.0/16 must not hand out credentials.
const METADATA = table([
  ['169.254.169.254/32', 'metadata'], // AWS, GCP, Azure, DigitalOcean, OpenStack, Oracle
  ['169.254.170.2/32', 'metadata'], // AWS ECS task credentials
  ['169.254.169.123/32', 'metadata'], // AWS time sync
  ['100.100.100.200/32', 'metadata'], // Alibaba Cloud
  ['192.0.0.192/32', 'metadata'], // Oracle Cloud
  ['fd00:ec2::254/128', 'metadata'], // AWS IMDS over IPv6
  ['fd00:ec2::23/128', 'metadata'], // AWS time sync over IPv6
]);

// IANA IPv4 special-purpose registry, every block that is not globally reachable.
const V4 = table([
  ['255.255.255.255/32', 'broadcast'],
  ['0.0.0.0/8', 'unspecified'], // Linux routes 0.0.0.0 to the local host
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'linkLocal'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'], // deprecated 6to4 relay anycast
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
]);

// IPv6 blocks that are not globally reachable. Forms that embed an IPv4
// address (mapped, NAT64, 6to4, Teredo) are decided by that address instead.
const V6 = table([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'reserved'], // deprecated IPv4-compatible; never routed today
  ['64:ff9b:1::/48', 'private'], // local-use NAT64 (RFC 8215)
  ['100::/64', 'reserved'], // discard-only
  ['2001:2::/48', 'benchmarking'],
  ['2001:10::/28', 'reserved'], // ORCHID, not routable
  ['2001:20::/28', 'reserved'], // ORCHIDv2, not routable
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'reserved'], // SRv6 SIDs
  ['fc00::/7', 'uniqueLocal'],
  ['fe80::/10', 'linkLocal'],
  ['fec0::/10', 'private'], // deprecated site-local
  ['ff00::/8', 'multicast'],
]);

const v6Range = (cidr: string) => ipaddr.parseCIDR(cidr) as [ipaddr.IPv6, number];
const MAPPED = v6Range('::ffff:0:0/96');
const TRANSLATED = v6Range('::ffff:0:0:0/96');
const NAT64 = v6Range('64:ff9b::/96');
const SIX_TO_FOUR = v6Range('2002::/16');
const TEREDO = v6Range('2001::/32');
const GLOBAL_UNICAST = v6Range('2000::/3');

/** The class of an already parsed address. */
export function classOf(addr: ipaddr.IPv4 | ipaddr.IPv6): AddressClass {
  for (const [net, bits, cls] of METADATA) if (sameKindMatch(addr, net, bits)) return cls;
  if (addr.kind() === 'ipv4') {
    for (const [net, bits, cls] of V4) if (sameKindMatch(addr, net, bits)) return cls;
    return 'public';
  }
  const v6 = addr as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded.length > 0) {
    const blocked = embedded.map(classOf).find((cls) => cls !== 'public');
    return blocked ?? 'public';
  }
  for (const [net, bits, cls] of V6) if (sameKindMatch(v6, net, bits)) return cls;
  // Only 2000::/3 is allocated for global unicast; anything else is not a web host.
  return v6.match(GLOBAL_UNICAST) ? 'public' : 'reserved';
}

/**
 * The IPv4 addresses an IPv6 address carries and would end up reaching:
 * mapped (::ffff:a.b.c.d), SIIT-translated, NAT64 well-known prefix, 6to4,
 * and Teredo (both the server and the obfuscated client).
 */
export function embeddedIPv4(addr: ipaddr.IPv6): ipaddr.IPv4[] {
  const b = addr.toByteArray();
  const v4 = (at: number, xor = 0) =>
    new ipaddr.IPv4([0, 1, 2, 3].map((i) => (b[at + i] as number) ^ xor) as [number, number, number, number]);
  if (addr.match(MAPPED) || addr.match(TRANSLATED) || addr.match(NAT64)) return [v4(12)];
  if (addr.match(SIX_TO_FOUR)) return [v4(2)];
  if (addr.match(TEREDO)) return [v4(4), v4(12, 0xff)];
  return [];
}

function sameKindMatch(addr: ipaddr.IPv4 | ipaddr.IPv6, net: ipaddr.IPv4 | ipaddr.IPv6, bits: number): boolean {
  return addr.kind() === net.kind() && addr.match(net, bits);
}
