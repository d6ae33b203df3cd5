// MAILROOM_IP_POOLS: named sets of local source addresses, each with the name it gives in EHLO, so that a
// server's or a stream's mail leaves from its own IPs (the hosted service's dedicated IPs, Postal's IP
// pools). Two spellings, both checked here at start so that a typo stops the process instead of sending
// from the wrong address:
//   JSON:    [{"name":"transactional","addresses":["192.0.2.10","192.0.2.11"],"ehlo":"mta1.example.com"}]
//   compact: transactional=192.0.2.10,192.0.2.11@mta1.example.com;broadcast=192.0.2.20@mta2.example.com
// `ehlo` is optional (the service's EHLO name then). The receiving side compares the EHLO name with the
// address's PTR record (forward-confirmed reverse DNS), so each pool normally has its own name.
import { isIP } from 'node:net';
import type { IpPool } from '../../../infra/config-types.js';

export type { IpPool };

export const POOL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const HOST = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const KEYS = new Set(['name', 'addresses', 'ehlo']);

/** A problem with the value, worded for the operator; the settings reader (config-kinds-net.ts) prefixes the variable's name. */
export class IpPoolsError extends Error {}

function checkPool(raw: { name: unknown; addresses: unknown; ehlo: unknown }, where: string): IpPool {
  if (typeof raw.name !== 'string' || !POOL_NAME.test(raw.name)) {
    throw new IpPoolsError(`${where}: name must be 1 to 64 letters, digits, '.', '_' or '-' (starting with a letter or digit), got ${JSON.stringify(raw.name)}`);
  }
  const name = raw.name;
  if (!Array.isArray(raw.addresses) || raw.addresses.length === 0) throw new IpPoolsError(`pool ${name}: needs at least one address`);
  const addresses: string[] = [];
  for (const a of raw.addresses) {
    const ip = typeof a === 'string' ? a.trim().replace(/^\[|\]$/g, '') : '';
    if (!isIP(ip)) throw new IpPoolsError(`pool ${name}: ${JSON.stringify(a)} is not an IPv4 or IPv6 address`);
    // Binding to the wildcard is what happens without a pool: naming it in one would only hide that.
    if (ip === '0.0.0.0' || ip === '::') throw new IpPoolsError(`pool ${name}: ${ip} is the wildcard address, not a source address`);
    if (addresses.includes(ip)) throw new IpPoolsError(`pool ${name}: ${ip} is listed twice`);
    addresses.push(ip);
  }
  let ehlo: string | null = null;
  if (raw.ehlo !== undefined && raw.ehlo !== null && raw.ehlo !== '') {
    if (typeof raw.ehlo !== 'string' || !HOST.test(raw.ehlo)) throw new IpPoolsError(`pool ${name}: ehlo must be a host name, got ${JSON.stringify(raw.ehlo)}`);
    ehlo = raw.ehlo.toLowerCase();
  }
  return { name, addresses, ehlo };
}

function fromJson(text: string): IpPool[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new IpPoolsError('not valid JSON (expected [{"name":..., "addresses":[...], "ehlo":...}] or name=ip,ip@ehlo;...)');
  }
  if (!Array.isArray(v)) throw new IpPoolsError('expected a JSON array of pools');
  return v.map((p, i) => {
    if (p === null || typeof p !== 'object' || Array.isArray(p)) throw new IpPoolsError(`pool #${i + 1}: expected an object`);
    const extra = Object.keys(p).find((k) => !KEYS.has(k));
    if (extra) throw new IpPoolsError(`pool #${i + 1}: unknown field ${JSON.stringify(extra)} (known: name, addresses, ehlo)`);
    const o = p as Record<string, unknown>;
    return checkPool({ name: o.name, addresses: o.addresses, ehlo: o.ehlo }, `pool #${i + 1}`);
  });
}

function fromCompact(text: string): IpPool[] {
  return text
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry, i) => {
      const eq = entry.indexOf('=');
      if (eq < 0) throw new IpPoolsError(`pool #${i + 1}: expected name=ip[,ip...][@ehlo], got ${JSON.stringify(entry)}`);
      const [list, ehlo, more] = entry.slice(eq + 1).split('@');
      if (more !== undefined) throw new IpPoolsError(`pool #${i + 1}: more than one '@' in ${JSON.stringify(entry)}`);
      const addresses = list.split(',').map((a) => a.trim()).filter(Boolean);
      return checkPool({ name: entry.slice(0, eq).trim(), addresses, ehlo: ehlo?.trim() }, `pool #${i + 1}`);
    });
}

/** The configured pools; an empty or unset value is no pools (every connection from the OS's choice). */
export function parseIpPools(value: string | undefined): IpPool[] {
  const text = (value ?? '').trim();
  if (text === '') return [];
  const pools = text.startsWith('[') ? fromJson(text) : fromCompact(text);
  const seen = new Set<string>();
  for (const p of pools) {
    const k = p.name.toLowerCase();
    if (seen.has(k)) throw new IpPoolsError(`pool ${p.name} is defined twice (names are compared without regard to case)`);
    seen.add(k);
  }
  return pools;
}

/** The pool of that name (any case), or undefined. */
export function findPool(pools: readonly IpPool[], name: string): IpPool | undefined {
  const k = name.toLowerCase();
  return pools.find((p) => p.name.toLowerCase() === k);
}
