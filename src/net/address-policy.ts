import ipaddr from 'ipaddr.js';

/**
 * Which addresses Cairn's outbound reads may connect to: public unicast only. IPv6 forms that
 * carry an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) are judged by the IPv4
 * address inside them, because that is where the packets end up.
 */

export interface AddressVerdict {
  allowed: boolean;
  /** Why, in words (the range name for refusals). */
  reason: string;
}

// Ranges ipaddr.js files under "unicast" or names loosely, refused explicitly all the same.
// (Its own non-unicast ranges already cover CGNAT 100.64/10, where Alibaba Cloud's metadata
// service 100.100.100.200 lives, and link-local 169.254/16 with everyone else's.)
const EXTRA_V4_BLOCKS: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['192.0.0.0', 24], // IETF protocol assignments, incl. Oracle Cloud's metadata 192.0.0.192
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // former 6to4 relay anycast
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['240.0.0.0', 4], // reserved, and broadcast
];

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
// The well-known NAT64 prefix carries the IPv4 address in its last 32 bits; the local-use
// prefix (RFC 8215) is operator-defined, embeds it elsewhere, and always leads into a local network.
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
const NAT64_LOCAL_USE = ipaddr.parseCIDR('64:ff9b:1::/48');

function checkV4(ip: ipaddr.IPv4): AddressVerdict {
  const range = ip.range();
  if (range !== 'unicast') return { allowed: false, reason: `IPv4 ${range} address` };
  for (const [net, bits] of EXTRA_V4_BLOCKS) {
    if (ip.match(ipaddr.IPv4.parse(net), bits)) return { allowed: false, reason: 'IPv4 reserved address' };
  }
  return { allowed: true, reason: 'public IPv4 unicast' };
}

/** The IPv4 addresses an IPv6 transition address carries, or null when it carries none. */
function embeddedV4(ip: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const b = ip.toByteArray();
  const v4 = (offset: number, xor = 0) =>
    new ipaddr.IPv4([0, 1, 2, 3].map((i) => (b[offset + i] ?? 0) ^ xor));
  const range = ip.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || ip.match(NAT64_WELL_KNOWN)) return [v4(12)];
  if (range === '6to4') return [v4(2)];
  // Teredo: the server's address in bits 32-63, the client's (inverted) in the last 32 bits.
  if (range === 'teredo') return [v4(4), v4(12, 0xff)];
  // IPv4-compatible (::a.b.c.d, deprecated), which ipaddr.js calls unicast.
  if (b.slice(0, 12).every((x) => x === 0)) return [v4(12)];
  return null;
}

function checkV6(ip: ipaddr.IPv6): AddressVerdict {
  const range = ip.range();
  // `::` and `::1` look IPv4-compatible too; they are judged as what they are.
  if (range === 'unspecified' || range === 'loopback')
    return { allowed: false, reason: `IPv6 ${range} address` };
  if (ip.match(NAT64_LOCAL_USE)) return { allowed: false, reason: 'IPv6 local-use NAT64 address' };
  const inside = embeddedV4(ip);
  if (inside) {
    for (const v4 of inside) {
      const verdict = checkV4(v4);
      if (!verdict.allowed) return { allowed: false, reason: `${range} form of an ${verdict.reason}` };
    }
    return { allowed: true, reason: `${range} form of a public IPv4 address` };
  }
  if (range !== 'unicast') return { allowed: false, reason: `IPv6 ${range} address` };
  if (!ip.match(GLOBAL_UNICAST_V6))
    return { allowed: false, reason: 'IPv6 address outside global unicast 2000::/3' };
  return { allowed: true, reason: 'public IPv6 unicast' };
}

/**
 * Judges one address (text of IPv4 or IPv6, without brackets; a zone id is ignored because
 * only link-local addresses carry one, and those are refused).
 */
export function checkAddress(address: string): AddressVerdict {
  if (!ipaddr.isValid(address)) return { allowed: false, reason: 'not an IP address' };
  const ip = ipaddr.parse(address);
  return ip.kind() === 'ipv4' ? checkV4(ip as ipaddr.IPv4) : checkV6(ip as ipaddr.IPv6);
}

/**
 * The address a URL host names directly, in canonical form, or null when the host is a name.
 * Trailing dots are dropped first: `127.0.0.1..` survives WHATWG parsing as a "name" yet is an
 * address to every resolver that sees it.
 */
export function literalAddress(host: string): string | null {
  const bare = host.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  return ipaddr.isValid(bare) ? ipaddr.parse(bare).toString() : null;
}

/** Host names that lead to internal services whatever they resolve to. */
const BLOCKED_HOSTS = new Set([
  'localhost',
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.tencentyun.com', // Tencent Cloud's instance metadata
  'instance-data',
  'kubernetes',
  'kubernetes.default',
]);
const BLOCKED_SUFFIXES = [
  '.localhost',
  '.internal', // also AWS's instance-data.ec2.internal and GCP's metadata.google.internal
  '.local',
  '.localdomain',
  '.home.arpa',
  '.intranet',
  '.lan',
  '.svc', // Kubernetes service names (name.namespace.svc[.cluster.local])
];

/**
 * True for names of local or cloud-internal services (a trailing dot makes no difference), and
 * for any single-label name (`intranet`, `ip6-localhost`): no public site has one, and a
 * resolver's search domains would turn it into an internal name.
 */
export function isBlockedHostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.+$/, '');
  const singleLabel = !h.includes('.') && !h.includes(':');
  return singleLabel || BLOCKED_HOSTS.has(h) || BLOCKED_SUFFIXES.some((s) => h.endsWith(s));
}
