// Which IP addresses a webhook may never reach: loopback, private, link-local, unique-local, unspecified,
// multicast and reserved ranges, in every IPv6 form that embeds an IPv4 address (a guard that only knew
// ::ffff:a.b.c.d would let http://[::127.0.0.1]/ through).
import { BlockList, isIP } from 'node:net';

function v4List(): BlockList {
  const list = new BlockList();
  for (const [net, bits] of [
    ['0.0.0.0', 8], // "this network", unspecified (RFC 1122 3.2.1.3)
    ['10.0.0.0', 8], // private (RFC 1918)
    ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
    ['127.0.0.0', 8], // loopback
    ['169.254.0.0', 16], // link-local, incl. the 169.254.169.254 metadata service (RFC 3927)
    ['172.16.0.0', 12], // private (RFC 1918)
    ['192.0.0.0', 24], // IETF protocol assignments (RFC 6890)
    ['192.168.0.0', 16], // private (RFC 1918)
    ['198.18.0.0', 15], // benchmarking (RFC 2544)
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, incl. broadcast 255.255.255.255
  ] as const) {
    list.addSubnet(net, bits, 'ipv4');
  }
  return list;
}

function v6List(): BlockList {
  const list = new BlockList();
  for (const [net, bits] of [
    ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible addresses (RFC 4291 2.5.5.1)
    ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translated inside the operator's own network
    ['100::', 64], // discard-only (RFC 6666)
    ['fc00::', 7], // unique local (RFC 4193), incl. fd00:ec2::254 (a cloud metadata address)
    ['fe80::', 10], // link-local (RFC 4291 2.5.6)
    ['fec0::', 10], // deprecated site-local (RFC 3879)
    ['ff00::', 8], // multicast
  ] as const) {
    list.addSubnet(net, bits, 'ipv6');
  }
  return list;
}

const V4 = v4List();
const V6 = v6List();

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
  if (g[0] === 0x2002) return dotted(g[1], g[2]); // 6to4 2002::/16 (RFC 3056)
  if (g[0] === 0x2001 && g[1] === 0) return dotted(g[6] ^ 0xffff, g[7] ^ 0xffff); // Teredo client (RFC 4380 4)
  return null;
}

/** True for addresses a webhook may not reach. Brackets and a zone index are ignored; anything that is not
 * an IP address at all is refused. */
export function isForbiddenAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(a);
  if (family === 4) return V4.check(a, 'ipv4');
  if (family !== 6) return true;
  if (V6.check(a, 'ipv6')) return true;
  const v4 = embeddedV4(groups(a));
  return v4 !== null && V4.check(v4, 'ipv4');
}
