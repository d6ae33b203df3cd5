// The one reader of the settings that have a `kind` in src/settings.ts: the table says what a value may be,
// and this turns the variable into a typed value or stops the start with a message naming the variable.
// Settings without a kind (files, URLs with their own schemes, settings checked together) are read by their
// own functions in src/config.ts, with ConfigError from here.
import { isIP } from 'node:net';
import { SETTINGS, type SettingKind, type SettingName } from './settings.js';

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
  }
}

export type Env = Record<string, string | undefined>;

type Settings = typeof SETTINGS;

/** The settings the table gives a kind. */
export type KindName = { [N in SettingName]: Settings[N] extends { kind: SettingKind } ? N : never }[SettingName];

type KindOf<N extends KindName> = Settings[N] extends { kind: infer K } ? K : never;

/** The value a kind reads to: null when unset and the table gives no fallback. */
type ValueOf<K> = K extends { type: 'int' }
  ? number
  : K extends { type: 'bool' }
    ? boolean
    : K extends { type: 'enum'; values: readonly (infer V)[] }
      ? V
      : K extends { type: 'ip-list' }
        ? string[]
        : K extends { type: 'port-or-off'; fallback: infer F }
          ? number | F
          : K extends { fallback: string }
            ? string
            : string | null;

export const HOSTNAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/**
 * The value of setting `name`, read and checked as its kind in the table says. `fallback` stands in for the
 * table's when the default is derived from other settings (the inbound domain from the return-path domain).
 */
export function setting<N extends KindName>(env: Env, name: N): ValueOf<KindOf<N>>;
export function setting<N extends KindName>(env: Env, name: N, fallback: NonNullable<ValueOf<KindOf<N>>>): NonNullable<ValueOf<KindOf<N>>>;
export function setting<N extends KindName>(env: Env, name: N, fallback?: NonNullable<ValueOf<KindOf<N>>>): ValueOf<KindOf<N>> {
  const kind = SETTINGS[name].kind as SettingKind;
  const raw = env[name];
  const v = raw === undefined || raw === '' ? undefined : raw;
  return readKind(name, kind, v, fallback) as ValueOf<KindOf<N>>;
}

function readKind(name: string, kind: SettingKind, v: string | undefined, given: unknown): unknown {
  const fallback = given !== undefined ? given : 'fallback' in kind ? kind.fallback : null;
  switch (kind.type) {
    case 'int':
      return v === undefined ? fallback : wholeNumber(name, v, kind.min, kind.max);
    case 'port-or-off':
      if (v === undefined) return fallback;
      return /^(off|none|disabled)$/i.test(v) ? null : wholeNumber(name, v, 0, 65535);
    case 'bool':
      if (v === undefined) return fallback;
      if (/^(1|true|yes|on)$/i.test(v)) return true;
      if (/^(0|false|no|off)$/i.test(v)) return false;
      throw new ConfigError(name, `expected true or false, got ${JSON.stringify(v)}`);
    case 'string':
      return v ?? fallback ?? null;
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
    case 'url':
      return httpUrl(name, v?.trim() || (fallback as string | null));
    case 'token':
      if (v === undefined) return null;
      if (v.length < 16 || /\s/.test(v)) throw new ConfigError(name, 'a token needs at least 16 characters and no spaces');
      return v;
    case 'ip-list':
      return v === undefined || !v.trim() ? [] : v.split(',').map((entry) => ipOrRange(name, entry.trim()));
  }
}

function wholeNumber(name: string, v: string, min: number, max: number): number {
  if (!/^\d+$/.test(v)) throw new ConfigError(name, `expected a whole number, got ${JSON.stringify(v)}`);
  const n = Number(v);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
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
