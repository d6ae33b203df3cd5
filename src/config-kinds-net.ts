// Settings whose values are addresses: of a relay, of resolvers, of a spamd, of the DMARC reports' mailbox,
// of the recipients a release may go to, and the pools of source addresses.
import { ConfigError, HOSTNAME } from './config-error.js';
import { IpPoolsError, parseIpPools } from './domain/delivery/ip-pools/parse.js';
import type { DnsServer, IpPool, SmtpRelay } from './infra/config-types.js';

/** smtp://[user:pass@]host[:port] (587 by default) or smtps:// (465, implicit TLS). */
export function smtpRelay(name: string, v: string): SmtpRelay {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(name, 'expected smtp://[user:pass@]host:port or smtps://...');
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new ConfigError(name, `unsupported scheme ${u.protocol}`);
  if (!u.hostname) throw new ConfigError(name, 'missing host');
  const secure = u.protocol === 'smtps:';
  return {
    url: v,
    secure,
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    user: u.username ? decodeURIComponent(u.username) : undefined,
    pass: u.password ? decodeURIComponent(u.password) : undefined,
  };
}

function port(name: string, digits: string | undefined, fallback: number, where: string): number {
  const p = digits ? Number(digits) : fallback;
  if (p < 1 || p > 65535) throw new ConfigError(name, `bad port in ${JSON.stringify(where)}`);
  return p;
}

/** Resolvers: ip, ip:port, [v6]:port, comma-separated (port 53 by default). */
export function dnsServers(name: string, v: string): DnsServer[] {
  return v.split(',').map((part) => {
    const s = part.trim();
    const m = /^\[([0-9a-f:.]+)\](?::(\d+))?$/i.exec(s) ?? /^([0-9.]+)(?::(\d+))?$/.exec(s) ?? /^([0-9a-f:]+)$/i.exec(s);
    if (!m) throw new ConfigError(name, `not an ip[:port]: ${JSON.stringify(s)}`);
    return { host: m[1], port: port(name, m[2], 53, s) };
  });
}

/** host:port, IPv6 as [::1]:783. */
export function hostPort(name: string, v: string): { host: string; port: number } {
  const m = /^\[([0-9a-f:.]+)\]:(\d+)$/i.exec(v) ?? /^([a-z0-9.-]+):(\d+)$/i.exec(v);
  if (!m) throw new ConfigError(name, `expected host:port, got ${JSON.stringify(v)}`);
  return { host: m[1], port: port(name, m[2], 0, v) };
}

/** The DMARC reports' address, split: each domain's rua is <local>+<domain tag>@<domain> (domain/dmarc/report-address.ts). */
export function reportAddress(name: string, address: string): { local: string; domain: string } {
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  // A plain dot-atom without '+', since +<domain tag> is appended to it.
  if (at <= 0 || !/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(local) || local.length > 40 || !HOSTNAME.test(domain)) {
    throw new ConfigError(name, `expected an address like dmarc@example.com (letters, digits, '.', '_' or '-' before the @, no '+'), got ${JSON.stringify(address)}`);
  }
  return { local, domain };
}

/** An entry of a release's allowed recipients: an address, a domain, or `*.` and a domain. */
const ALLOWED_ENTRY = /^(?:[^\s@,]+@)?(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*$/i;

export function recipientList(name: string, v: string): string[] {
  const entries = v.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean);
  for (const e of entries) {
    if (e.length > 320 || !ALLOWED_ENTRY.test(e)) throw new ConfigError(name, `not an address, a domain or *.domain: ${JSON.stringify(e)}`);
  }
  return entries;
}

export function ipPools(name: string, v: string | undefined): IpPool[] {
  try {
    return parseIpPools(v);
  } catch (err) {
    if (err instanceof IpPoolsError) throw new ConfigError(name, err.message);
    throw err;
  }
}
