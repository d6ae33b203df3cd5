// Which IP addresses are not globally reachable: every entry of IANA's IPv4 and IPv6 Special-Purpose
// Address Registries whose "Globally Reachable" column is False (registries last updated 2025-10-09:
// https://www.iana.org/assignments/iana-ipv4-special-registry/ and
// https://www.iana.org/assignments/iana-ipv6-special-registry/), with the few globally reachable entries
// carved out of their enclosing blocks, plus multicast, and every IPv6 form that embeds an IPv4 address
// judged by that IPv4 address (a guard that only knew ::ffff:a.b.c.d would let http://[::127.0.0.1]/ in).
import { BlockList, isIP } from 'node:net';

type Range = readonly [network: string, bits: number];

/** IPv4 entries marked not globally reachable. */
const V4_NOT_GLOBAL: Range[] = [
  ['0.0.0.0', 8], // "this network" (RFC 791, RFC 1122 3.2.1.3)
  ['10.0.0.0', 8], // private use (RFC 1918)
  ['100.64.0.0', 10], // shared address space, carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback (RFC 1122)
  ['169.254.0.0', 16], // link local, incl. the 169.254.169.254 metadata service (RFC 3927)
  ['172.16.0.0', 12], // private use (RFC 1918)
  ['192.0.0.0', 24], // IETF protocol assignments (RFC 6890): 192.0.0.0/29, .8, .170/31 ... (exceptions below)
  ['192.0.2.0', 24], // documentation TEST-NET-1 (RFC 5737)
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast (RFC 7526), incl. 6a44 relay 192.88.99.2 (RFC 6751)
  ['192.168.0.0', 16], // private use (RFC 1918)
  ['198.18.0.0', 15], // benchmarking (RFC 2544)
  ['198.51.100.0', 24], // documentation TEST-NET-2 (RFC 5737)
  ['203.0.113.0', 24], // documentation TEST-NET-3 (RFC 5737)
  ['224.0.0.0', 4], // multicast (RFC 5771; a webhook is unicast HTTP)
  ['240.0.0.0', 4], // reserved (RFC 1112), incl. limited broadcast 255.255.255.255 (RFC 919)
];

/** Globally reachable entries inside the blocks above. */
const V4_GLOBAL: Range[] = [
  ['192.0.0.9', 32], // Port Control Protocol anycast (RFC 7723)
  ['192.0.0.10', 32], // TURN anycast (RFC 8155)
];

/**
 * IPv6 entries marked not globally reachable. 64:ff9b::/96 (NAT64, RFC 6052), ::ffff:0:0/96 (IPv4-mapped,
 * RFC 4291 2.5.5.2) and 2002::/16 (6to4, RFC 3056) carry an IPv4 address and are judged by it (embeddedV4).
 */
const V6_NOT_GLOBAL: Range[] = [
  ['::', 96], // unspecified ::/128, loopback ::1/128, deprecated IPv4-compatible (RFC 4291 2.5.5.1)
  ['64:ff9b:1::', 48], // local-use IPv4/IPv6 translation (RFC 8215)
  ['100::', 64], // discard-only (RFC 6666)
  ['100:0:0:1::', 64], // dummy IPv6 prefix (RFC 9780)
  ['2001::', 23], // IETF protocol assignments (RFC 2928), incl. Teredo 2001::/32, benchmarking 2001:2::/48, ORCHID 2001:10::/28
  ['2001:db8::', 32], // documentation (RFC 3849)
  ['3fff::', 20], // documentation (RFC 9637)
  ['5f00::', 16], // segment routing SIDs (RFC 9602)
  ['fc00::', 7], // unique local (RFC 4193), incl. fd00:ec2::254 (a cloud metadata address)
  ['fe80::', 10], // link-scoped unicast (RFC 4291 2.5.6)
  ['fec0::', 10], // deprecated site-local (RFC 3879)
  ['ff00::', 8], // multicast (RFC 4291 2.7)
];

/** Globally reachable entries inside 2001::/23. */
const V6_GLOBAL: Range[] = [
  ['2001:1::1', 128], // Port Control Protocol anycast (RFC 7723)
  ['2001:1::2', 128], // TURN anycast (RFC 8155)
  ['2001:1::3', 128], // DNS-SD service registration protocol anycast (RFC 9665)
  ['2001:3::', 32], // AMT (RFC 7450)
  ['2001:4:112::', 48], // AS112-v6 (RFC 7535)
  ['2001:20::', 28], // ORCHIDv2 (RFC 7343)
  ['2001:30::', 28], // drone remote ID entity tags (RFC 9374)
];

function list(ranges: Range[], family: 'ipv4' | 'ipv6'): BlockList {
  const l = new BlockList();
  for (const [net, bits] of ranges) l.addSubnet(net, bits, family);
  return l;
}

const V4_BAD = list(V4_NOT_GLOBAL, 'ipv4');
const V4_OK = list(V4_GLOBAL, 'ipv4');
const V6_BAD = list(V6_NOT_GLOBAL, 'ipv6');
const V6_OK = list(V6_GLOBAL, 'ipv6');
/** IANA allocates global unicast only from 2000::/3 (IPv6 Address Space registry); the rest is reserved. */
const V6_UNICAST = list([['2000::', 3]], 'ipv6');

/** The eight 16-bit groups of an IPv6 address (already known valid by isIP), dotted IPv4 tail included. */
function groups(address: string): number[] {
  let a = address.toLowerCase();
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a);
  if (tail) {
    const [b0, b1, b2, b3] = tail.slice(1).map(Number);
    a = a.slice(0, tail.index) + ((b0 << 8) | b1).toString(16) + ':' + ((b2 << 8) | b3).toString(16);
  }
  const [head, rest] = a.split('::');
  const h = head ? head.split(':') : [];
  const r = rest !== undefined && rest !== '' ? rest.split(':') : [];
  const fill = rest !== undefined ? new Array(8 - h.length - r.length).fill('0') : [];
  return [...h, ...fill, ...r].map((g) => parseInt(g, 16));
}

const dotted = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 address an IPv6 address stands for, when it embeds one; null otherwise. */
function embeddedV4(g: number[]): string | null {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return dotted(g[6], g[7]); // IPv4-mapped ::ffff:0:0/96 (RFC 4291 2.5.5.2)
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return dotted(g[6], g[7]); // IPv4-translated ::ffff:0:0:0/96 (RFC 2765)
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return dotted(g[6], g[7]); // NAT64 64:ff9b::/96 (RFC 6052)
  if (g[0] === 0x2002) return dotted(g[1], g[2]); // 6to4 2002::/16 (RFC 3056 2)
  return null;
}

/** An address without brackets and zone index, with an IPv4-mapped IPv6 address written as its IPv4. */
export function normalizeAddress(address: string): string {
  const a = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(a) !== 6) return a;
  const g = groups(a);
  return g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff ? dotted(g[6], g[7]) : a;
}

/**
 * True for an address IANA's registries mark not globally reachable (or that is no IP address at all).
 * Brackets and a zone index are ignored.
 */
export function isNotGlobal(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(a);
  if (family === 4) return V4_BAD.check(a, 'ipv4') && !V4_OK.check(a, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedV4(groups(a));
  if (v4 !== null) return isNotGlobal(v4);
  if (!V6_UNICAST.check(a, 'ipv6')) return true;
  return V6_BAD.check(a, 'ipv6') && !V6_OK.check(a, 'ipv6');
}
