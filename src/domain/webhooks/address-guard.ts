// Server-side request forgery guard for webhook targets. A webhook URL is user input that makes this
// service send requests; without a guard it could reach the loopback admin ports, the private network or a
// cloud metadata endpoint. The check is made on the address actually connected to (a custom `lookup` for
// the HTTP agent), so a public-looking name that resolves to a private address is refused too (DNS
// rebinding gets no second chance: the address checked is the address used).
import { lookup as systemLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { AppContext } from '../app-context.js';
import { isForbiddenAddress } from './forbidden-address.js';

export { isForbiddenAddress };

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
export function checkWebhookUrl(url: string, allowPrivate: boolean, o: { credentialsInUrl?: boolean } = {}): string | null {
  // The text must say plainly where it goes: `scheme://host...`. The URL parser repairs `http:///x`,
  // `http:/x` and `http:\\x` into a host the user never wrote; such a URL is refused, not guessed at.
  if (!/^https?:\/\/[^/\\?#\s]/i.test(url) || /[\s\\]/.test(url)) return 'Url must be an absolute http or https URL.';
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'Url must be an absolute http or https URL.';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'Url must be an absolute http or https URL.';
  // Stream webhooks carry credentials in HttpAuth; the server's InboundHookUrl takes them in the URL, as the
  // hosted service's does (credentialsInUrl).
  if (!o.credentialsInUrl && (u.username || u.password)) return 'Put credentials in HttpAuth, not in the Url.';
  // A fully qualified name may end in dots (RFC 1034 3.1): `localhost.` is localhost.
  const host = u.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  if (!host) return 'Url must name a host.';
  if (!allowPrivate) {
    // The URL parser has already read decimal, octal and hex IPv4 spellings (2130706433, 0177.0.1) as IPv4.
    if (isIP(host) && isForbiddenAddress(host)) return `Url points at ${host}, a private or reserved address.`;
    if (host === 'localhost' || host.endsWith('.localhost')) return 'Url points at localhost.';
  }
  return null;
}
