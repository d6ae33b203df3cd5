// The guard for every outbound HTTP request to a URL a user gave (webhooks, a server's InboundHookUrl):
// server-side request forgery would otherwise let a tenant reach the loopback admin ports, the private
// network, a cloud metadata endpoint, or this host's own listeners through its public address (a listener
// bound to 0.0.0.0 answers there). Refused: every address IANA's special-purpose registries mark not
// globally reachable (special-addresses.ts) and every address of this host's interfaces, unless the
// operator sets MAILROOM_WEBHOOK_ALLOW_PRIVATE=true.
//
// Two checks, one rule: the URL's text when it is saved (a literal IP or `localhost`; a name is not resolved
// then, its records can change), and the address actually connected to, through a `lookup` for the HTTP
// agent that resolves the name, refuses it if ANY of its addresses is forbidden, and hands the socket the
// very address it checked: the connection is pinned to it, so a DNS rebinding between check and connect
// has nothing to swap.
import { lookup as systemLookup } from 'node:dns';
import type { Resolver } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';
import { isNotGlobal, normalizeAddress } from './special-addresses.js';

export class ForbiddenTargetError extends Error {
  readonly code = 'EWEBHOOKFORBIDDEN';
  constructor(host: string, address: string, why: string) {
    super(`webhook target ${host} resolves to ${address}, ${why} (set MAILROOM_WEBHOOK_ALLOW_PRIVATE=true to allow)`);
  }
}

/** Where this host's own addresses come from; tests replace it to give the host an address of their choosing. */
export type InterfaceSource = () => string[];

const systemInterfaces: InterfaceSource = () =>
  Object.values(networkInterfaces())
    .flat()
    .map((i) => i?.address)
    .filter((a): a is string => typeof a === 'string');

let interfaceSource: InterfaceSource = systemInterfaces;
let cached: { at: number; list: BlockList } | null = null;
/** Interfaces rarely change; reading them (getifaddrs) once every few seconds keeps the check cheap per request. */
const INTERFACE_TTL_MS = 5_000;

/** For tests: the host's addresses as given (null restores the system's). */
export function setInterfaceSource(source: InterfaceSource | null): void {
  interfaceSource = source ?? systemInterfaces;
  cached = null;
}

function ownAddresses(): BlockList {
  const now = Date.now();
  if (cached && now - cached.at < INTERFACE_TTL_MS) return cached.list;
  const list = new BlockList();
  for (const raw of interfaceSource()) {
    const a = normalizeAddress(raw);
    const family = isIP(a);
    if (family) list.addAddress(a, family === 4 ? 'ipv4' : 'ipv6');
  }
  cached = { at: now, list };
  return list;
}

/** Why an address may not be a target, or null when it may. */
export function forbiddenReason(address: string): string | null {
  if (isNotGlobal(address)) return 'a private or reserved address';
  const a = normalizeAddress(address);
  const family = isIP(a);
  if (family && ownAddresses().check(a, family === 4 ? 'ipv4' : 'ipv6')) return 'an address of this host';
  return null;
}

export const isForbiddenAddress = (address: string): boolean => forbiddenReason(address) !== null;

/**
 * Checks a target URL's text (save time, and again before each request: a literal IP host is connected to
 * without any lookup, and a row saved before a rule existed must not slip through). A reason, or null.
 * `credentialsInUrl`: the URL may carry user:password (the InboundHookUrl, as on the hosted service).
 */
export function checkTargetUrl(url: string, allowPrivate: boolean, o: { credentialsInUrl?: boolean } = {}): string | null {
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
  if (!o.credentialsInUrl && (u.username || u.password)) return 'Put credentials in HttpAuth, not in the Url.';
  // A fully qualified name may end in dots (RFC 1034 3.1): `localhost.` is localhost.
  const host = u.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  if (!host) return 'Url must name a host.';
  if (!allowPrivate) {
    // The URL parser has already read decimal, octal and hex IPv4 spellings (2130706433, 0177.0.1) as IPv4.
    const why = isIP(host) ? forbiddenReason(host) : null;
    if (why) return `Url points at ${host}, ${why}.`;
    // RFC 6761 6.3: localhost names resolve to loopback.
    if (host.toLowerCase() === 'localhost' || host.toLowerCase().endsWith('.localhost')) return 'Url points at localhost.';
  }
  return null;
}

type Resolved = Array<{ address: string; family: number }>;

/** Resolves a name with the service's resolver (MAILROOM_DNS_SERVERS) when given, else the system's. */
async function resolveHost(resolver: Resolver | null, host: string): Promise<Resolved> {
  if (resolver) {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
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

export interface GuardOptions {
  /** The resolver to use, or null for the system's (getaddrinfo). */
  resolver: Resolver | null;
  /** Read at each lookup: the operator's MAILROOM_WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: () => boolean;
}

/**
 * A `lookup` for http.Agent: resolves the name and refuses it when ANY of its addresses is forbidden (an
 * attacker controlling the zone could otherwise mix a public and a private record and win the race); the
 * socket then connects to the address returned here, the one checked.
 */
export function guardedLookup(o: GuardOptions): LookupFunction {
  return (hostname, options, callback) => {
    resolveHost(o.resolver, hostname).then(
      (all) => {
        if (!o.allowPrivate()) {
          for (const a of all) {
            const why = forbiddenReason(a.address);
            if (why) return callback(new ForbiddenTargetError(hostname, a.address, why), '', 4);
          }
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

/** Whether `address` is one of this host's interface addresses (DMARC report sources that are mailroom's own). */
export function isHostAddress(address: string): boolean {
  const a = normalizeAddress(address);
  const family = isIP(a);
  return family !== 0 && ownAddresses().check(a, family === 4 ? 'ipv4' : 'ipv6');
}
