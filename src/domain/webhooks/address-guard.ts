// Server-side request forgery guard for webhook targets. A webhook URL is user input that makes this
// service send requests; without a guard it could reach the loopback admin ports, the private network or a
// cloud metadata endpoint. The check is made on the address actually connected to (a custom `lookup` for
// the HTTP agent), so a public-looking name that resolves to a private address is refused too (DNS
// rebinding gets no second chance: the address checked is the address used).
import { lookup as systemLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { AppContext } from '../../context.js';

const blocked = new BlockList();
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
  blocked.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local (RFC 4193), incl. fd00:ec2::254 (a cloud metadata address)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

/** Addresses that embed an IPv4 address (NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by that address. */
function embeddedV4(address: string): string | null {
  const m = /^64:ff9b::([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address) ?? /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4})(:|$)/i.exec(address);
  if (!m) return null;
  const hi = parseInt(m[1], 16);
  const lo = parseInt(m[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** True for loopback, private, link-local, CGNAT, metadata, unspecified, multicast and reserved addresses.
 * IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are matched against the IPv4 ranges by BlockList itself. */
export function isForbiddenAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(a);
  if (family === 4) return blocked.check(a, 'ipv4');
  if (family === 6) {
    if (blocked.check(a, 'ipv6')) return true;
    const v4 = embeddedV4(a);
    return v4 !== null && blocked.check(v4, 'ipv4');
  }
  return true; // not an address at all: refuse
}

export class ForbiddenTargetError extends Error {
  readonly code = 'EWEBHOOKFORBIDDEN';
  constructor(host: string, address: string) {
    super(`webhook target ${host} resolves to ${address}, a private or reserved address (set MAILROOM_WEBHOOK_ALLOW_PRIVATE=true to allow)`);
  }
}

type Resolved = Array<{ address: string; family: number }>;

/** Resolves a host name with the service's DNS (MAILROOM_DNS_SERVERS when set) or the system resolver. */
async function resolveHost(ctx: AppContext, host: string): Promise<Resolved> {
  if (ctx.config.dnsServers) {
    const [v4, v6] = await Promise.allSettled([ctx.dns.resolve4(host), ctx.dns.resolve6(host)]);
    const out: Resolved = [];
    if (v4.status === 'fulfilled') out.push(...v4.value.map((address) => ({ address, family: 4 })));
    if (v6.status === 'fulfilled') out.push(...v6.value.map((address) => ({ address, family: 6 })));
    if (out.length === 0) {
      const reason = v4.status === 'rejected' ? v4.reason : v6.status === 'rejected' ? v6.reason : null;
      throw reason ?? Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    }
    return out;
  }
  return new Promise((resolve, reject) => {
    systemLookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });
}

/**
 * A `lookup` for http.Agent: resolves the name and refuses it when ANY of its addresses is forbidden (an
 * attacker controlling the zone could otherwise mix a public and a private record and win the race).
 */
export function guardedLookup(ctx: AppContext): LookupFunction {
  return (hostname, options, callback) => {
    resolveHost(ctx, hostname).then(
      (all) => {
        if (!ctx.config.webhookAllowPrivate) {
          const bad = all.find((a) => isForbiddenAddress(a.address));
          if (bad) return callback(new ForbiddenTargetError(hostname, bad.address), '', 4);
        }
        const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        if (wanted.length === 0) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
        if (options.all) (callback as unknown as (e: null, a: Resolved) => void)(null, wanted);
        else callback(null, wanted[0].address, wanted[0].family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 4),
    );
  };
}

/**
 * Checks a webhook URL's text (create/update time, and before each request: literal IP hosts are connected
 * to without any lookup). Returns a reason to refuse, or null.
 */
export function checkWebhookUrl(url: string, allowPrivate: boolean): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'Url must be an absolute http or https URL.';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'Url must be an absolute http or https URL.';
  if (!u.hostname) return 'Url must name a host.';
  if (u.username || u.password) return 'Put credentials in HttpAuth, not in the Url.';
  if (!allowPrivate) {
    const host = u.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && isForbiddenAddress(host)) return `Url points at ${host}, a private or reserved address.`;
    if (host === 'localhost' || host.endsWith('.localhost')) return 'Url points at localhost.';
  }
  return null;
}
