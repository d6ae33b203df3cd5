// How each kind of setting (SettingKind in src/infra/settings/setting.ts) turns a variable into its value:
// `v` is the variable (undefined when unset or empty), `fallback` a default the row derives from other
// settings; the kind's own fallback applies when neither is there.
import { isIP } from 'node:net';
import { ConfigError, type Env, HOSTNAME, wholeNumber } from './config-error.js';
import { readCaFile, readTlsPair } from './config-kinds-files.js';
import { dnsServers, hostPort, ipPools, recipientList, reportAddress, smtpRelay } from './config-kinds-net.js';
import type { Get, SettingKind } from './infra/settings/setting.js';

export { ConfigError, type Env } from './config-error.js';

export function readKind(name: string, kind: SettingKind, v: string | undefined, derived: unknown, env: Env, get: Get): unknown {
  const fallback = derived !== undefined ? derived : 'fallback' in kind ? kind.fallback : null;
  switch (kind.type) {
    case 'int':
      return v === undefined ? fallback : wholeNumber(name, v, kind.min, kind.max);
    case 'seconds': {
      const ms = (v === undefined ? kind.fallback : wholeNumber(name, v, kind.min, kind.max)) * 1000;
      // Node requires the headers timeout not to exceed the request timeout.
      return kind.atMost === undefined ? ms : Math.min(ms, get(kind.atMost) as number);
    }
    case 'port-or-off':
      if (v === undefined) return fallback;
      return /^(off|none|disabled)$/i.test(v) ? null : wholeNumber(name, v, 0, 65535);
    case 'bool':
      if (v === undefined) return fallback;
      if (/^(1|true|yes|on)$/i.test(v)) return true;
      if (/^(0|false|no|off)$/i.test(v)) return false;
      throw new ConfigError(name, `expected true or false, got ${JSON.stringify(v)}`);
    case 'string':
      return (kind.trim ? v?.trim() || undefined : v) ?? fallback ?? null;
    case 'enum': {
      if (v === undefined) return fallback;
      const value = kind.values.find((e) => e === v.toLowerCase());
      if (value === undefined) throw new ConfigError(name, `one of ${kind.values.join(', ')}; got ${JSON.stringify(v)}`);
      return value;
    }
    case 'hostname': {
      const h = (v ?? (fallback as string | null))?.toLowerCase() ?? null;
      if (h !== null && !HOSTNAME.test(h)) throw new ConfigError(name, `not a valid host name: ${JSON.stringify(h)}`);
      return h;
    }
    case 'url': {
      const url = httpUrl(name, v?.trim() || (fallback as string | null));
      return kind.base && url !== null ? url.replace(/\/+$/, '') : url;
    }
    case 'token':
      if (v === undefined) return null;
      if (v.length < 16 || /\s/.test(v)) throw new ConfigError(name, 'a token needs at least 16 characters and no spaces');
      return v;
    case 'secret':
      if (v === undefined) return null;
      if (v.length < kind.minLength) throw new ConfigError(name, `needs at least ${kind.minLength} characters`);
      return v;
    case 'ip-list':
      return v === undefined || !v.trim() ? [] : v.split(',').map((entry) => ipOrRange(name, entry.trim()));
    case 'database-url':
      return databaseUrl(name, v ?? kind.fallback);
    case 'path':
      return v?.trim() || null;
    case 'smtp-url':
      return v === undefined ? null : smtpRelay(name, v);
    case 'dns-servers':
      return v === undefined || v.trim() === '' || v.trim() === 'system' ? null : dnsServers(name, v);
    case 'host-port':
      return v === undefined || v.trim() === '' ? null : hostPort(name, v.trim());
    case 'tls-cert':
      return readTlsPair(name, kind.key, v ?? '', env[kind.key] ?? '');
    case 'tls-key':
      return v ?? null;
    case 'ca-file':
      return v === undefined ? null : readCaFile(name, v);
    case 'ip-pools':
      return ipPools(name, v);
    case 'report-address': {
      const address = v ?? (fallback as string | null);
      return address === null ? null : reportAddress(name, address.toLowerCase());
    }
    case 'recipient-list':
      return recipientList(name, v ?? '');
  }
}

function databaseUrl(name: string, v: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v) && !/^postgres(ql)?:\/\//i.test(v) && !/^file:\/\//i.test(v)) {
    throw new ConfigError(name, 'expected a file path (SQLite) or postgres://...');
  }
  return v;
}

function httpUrl(name: string, v: string | null): string | null {
  if (!v) return null;
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new ConfigError(name, `expected an absolute http(s) URL, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** `10.0.0.1`, `10.1.0.0/16`, `::1`, `fd00::/8`: an IP address, or one with a prefix length that fits it. */
function ipOrRange(name: string, entry: string): string {
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const family = isIP(address);
  const bits = slash < 0 ? null : entry.slice(slash + 1);
  const max = family === 6 ? 128 : 32;
  if (!family || (bits !== null && (!/^\d{1,3}$/.test(bits) || Number(bits) > max))) {
    throw new ConfigError(name, `expected IP addresses or CIDR ranges separated by commas, got ${JSON.stringify(entry)}`);
  }
  return entry;
}
