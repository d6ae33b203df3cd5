// What a row of the settings table (infra/settings-table.ts) declares, and the kinds a setting's value can
// be of: the area files of this folder are typed by it, src/config-read.ts reads each row by its kind, and
// infra/config-types.ts derives each Config field's type from its row's kind.

/** Another setting's value (read, checked and defaulted), for a default or a check that depends on it. */
export type Get = (name: `MAILROOM_${string}`) => unknown;

export interface Setting {
  /** The README groups settings by it. */
  area: string;
  /** As the README shows it: a value, `unset`, or how it is derived. */
  default: string;
  description: string;
  /** How its value is read and checked (src/config-read.ts), its type in Config, and the README's "values" column. */
  kind: SettingKind;
  /**
   * Where the value goes in Config: a field, or `group.field` (`submission.slots.idleMs`). Absent: it is
   * read with another setting (a TLS key with its certificate).
   */
  field?: string;
  /** The default when it follows from other settings (the inbound domain from the return-path domain). */
  derive?: (get: Get) => unknown;
  /** A rule across settings: the message when this value and the others' do not go together, else null. */
  check?: (value: unknown, get: Get) => string | null;
  /** The setting that turns its group (the first part of `field`) on: unset, the group is null. */
  gate?: true;
  /** The message when its group is on (its gate is set) and this is unset. */
  required?: string;
}

type SettingRef = `MAILROOM_${string}`;

/**
 * A setting's type. `fallback` is the value when unset or empty; absent, the setting is null when unset
 * unless the row derives it.
 */
export type SettingKind =
  | { type: 'int'; min: number; max: number; fallback?: number }
  /** Whole seconds in the variable, milliseconds in Config; `atMost`: never more than that setting. */
  | { type: 'seconds'; min: number; max: number; fallback: number; atMost?: SettingRef }
  | { type: 'bool'; fallback: boolean }
  /** `trim`: white space around it is dropped (and white space alone is unset). */
  | { type: 'string'; fallback?: string; trim?: true }
  | { type: 'hostname'; fallback?: string }
  /** An absolute http: or https: URL; `base`: trailing slashes are dropped, paths are appended to it. */
  | { type: 'url'; base?: true }
  /** One of `values`, matched without regard to case. */
  | { type: 'enum'; values: readonly string[]; fallback: string }
  /** A bearer token: at least 16 characters, no white space. */
  | { type: 'token' }
  /** Key material of at least `minLength` characters. */
  | { type: 'secret'; minLength: number }
  /** IP addresses and CIDR ranges, comma-separated. */
  | { type: 'ip-list' }
  /** A port to listen on (0: any free port), or `off`. */
  | { type: 'port-or-off'; fallback: number | null }
  /** A file path (SQLite) or a postgres:// URL. */
  | { type: 'database-url'; fallback: string }
  /** smtp://[user:pass@]host[:port] or smtps://. */
  | { type: 'smtp-url' }
  /** A folder. */
  | { type: 'path' }
  /** `system`, or resolvers as ip[:port], comma-separated. */
  | { type: 'dns-servers' }
  /** host:port, an IPv6 address in brackets. */
  | { type: 'host-port' }
  /** A PEM certificate file, read and checked at start with its key (the `key` setting). */
  | { type: 'tls-cert'; key: SettingRef }
  /** The PEM private key file of the `cert` setting; read with it. */
  | { type: 'tls-key'; cert: SettingRef }
  /** A PEM CA certificate file, read and checked at start. */
  | { type: 'ca-file' }
  /** Named pools of source addresses (domain/delivery/ip-pools/parse.ts). */
  | { type: 'ip-pools' }
  /** The address DMARC aggregate reports are mailed to, split at its @. */
  | { type: 'report-address' }
  /** Addresses, domains and `*.domain` entries, comma-separated, lower-cased. */
  | { type: 'recipient-list' };

