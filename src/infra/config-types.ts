// The shape of the configuration, below everything that reads it: the composition root (src/config.ts) reads
// MAILROOM_* variables into a Config, and infra, the domain and the edges receive it. Only types live here,
// so that nothing below the root imports the root (docs/architecture.md, "Layers"). Config is derived from
// the settings table (settings-table.ts): a row's kind gives its field's type, its `field` the place, so a
// new row is a new typed field with no declaration here.
import type { SETTINGS } from './settings-table.js';

/** One of MAILROOM_IP_POOLS (parsed and checked by src/domain/delivery/ip-pools/parse.ts). */
export interface IpPool {
  /** As configured; API values are matched without regard to case. */
  name: string;
  /** Local addresses connections bind to, used in turn (round robin). */
  addresses: string[];
  /** Name sent in EHLO/HELO (RFC 5321 4.1.1.1); null: the service's MAILROOM_EHLO_NAME. */
  ehlo: string | null;
}

export type Role = 'all' | 'api' | 'worker';

export interface DnsServer {
  host: string;
  port: number;
}

export interface SmtpRelay {
  url: string;
  secure: boolean;
  host: string;
  port: number;
  user?: string;
  pass?: string;
}

/** PEM certificate chain and private key the inbound SMTP listener offers through STARTTLS (RFC 3207). */
export interface InboundTls {
  certPath: string;
  keyPath: string;
  cert: string;
  key: string;
}

/** How long and how many connections one client may hold on an SMTP listener (smtp-listeners/client-slots.ts). */
export interface SmtpSlotLimits {
  /** Connections at once from one client address (IPv6: one /64). */
  maxPerClient: number;
  /** A connection without progress (an accepted MAIL, RCPT, DATA or AUTH) for this long is closed. */
  idleMs: number;
  /** A connection is closed this long after it opened, whatever it does. */
  sessionMs: number;
  /** A connection not authenticated this long after it opened is closed; null: AUTH is not expected. */
  authMs: number | null;
}

/** What each kind of setting reads to (settings/setting.ts, SettingKind); null: unset, with no default. */
interface KindValues {
  int: number;
  seconds: number;
  bool: boolean;
  string: string | null;
  hostname: string | null;
  url: string | null;
  token: string | null;
  secret: string | null;
  'ip-list': string[];
  /** null: `off` (or unset with no default). */
  'port-or-off': number | null;
  'database-url': string;
  'smtp-url': SmtpRelay | null;
  path: string | null;
  'dns-servers': DnsServer[] | null;
  'host-port': { host: string; port: number } | null;
  'tls-cert': InboundTls | null;
  'tls-key': string | null;
  'ca-file': { path: string; pem: string } | null;
  'ip-pools': IpPool[];
  'report-address': { local: string; domain: string } | null;
  'recipient-list': string[];
}

/** A kind's value, narrowed by what the kind says: an enum's values, a text fallback instead of null. */
type KindValue<K> = K extends { type: 'enum'; values: readonly (infer V)[] }
  ? V
  : K extends { type: 'string' | 'hostname'; fallback: string }
      ? string
      : K extends { type: infer T extends keyof KindValues }
        ? KindValues[T]
        : never;

type Table = typeof SETTINGS;

/** A row's value in Config: never null when derived, when it turns its group on, or when its group requires it. */
type RowValue<R> = R extends { kind: infer K }
  ? R extends { derive: unknown } | { gate: true } | { required: string }
    ? NonNullable<KindValue<K>>
    : KindValue<K>
  : never;

/** Each row with a field as its path in Config and its value. */
type Leaf = { [N in keyof Table]: Table[N] extends { field: infer F extends string } ? { path: F; value: RowValue<Table[N]> } : never }[keyof Table];

/** The leaves under `head.`, with that part of their path taken off. */
type Below<L, Head extends string> = L extends { path: `${Head}.${infer Rest}`; value: infer V } ? { path: Rest; value: V } : never;

/** The object the paths of `L` describe: `a.b` is field b of object a. */
type Tree<L extends { path: string; value: unknown }> = {
  [P in L['path'] as P extends `${infer Head}.${string}` ? Head : P]: P extends `${infer Head}.${string}` ? Tree<Below<L, Head>> : Extract<L, { path: P }>['value'];
};

/** Groups with a gate row: null when it is unset. */
type Gated = { [N in keyof Table]: Table[N] extends { gate: true; field: `${infer G}.${string}` } ? G : never }[keyof Table];

type FromTable = Tree<Leaf>;

/**
 * Not settings: the port of MX delivery is SMTP's 25 (RFC 5321) and MTA-STS's is 443 (RFC 8461 3.3), which
 * only tests, pointing delivery at loopback servers, override on the Config they build; and the inbound
 * listener expects no AUTH, so it has no AUTH deadline.
 */
interface Fixed {
  mxPort: number;
  mtaStsPort: number;
  inboundSlots: { authMs: null };
}

/** The configuration: one field per row of the settings table (see there what each means), and Fixed. */
export type Config = { [K in keyof FromTable]: K extends Gated ? FromTable[K] | null : FromTable[K] } & Fixed;

/** MAILROOM_SUBMISSION_*: the SMTP submission listener (src/smtp-listeners/submission-listener.ts). */
export type SubmissionConfig = Config['submission'];
/** MAILROOM_DEV_SMTP_*: the listener that takes mail without AUTH into one Sandbox server. */
export type DevSmtpConfig = NonNullable<Config['devSmtp']>;
/** MAILROOM_RELEASE_RELAY_*: where Mailpit's release sends a captured message (domain/mailpit/release.ts). */
export type ReleaseRelay = NonNullable<Config['releaseRelay']>;
/** DMARC aggregate reports (domain/dmarc/). */
export type DmarcConfig = Config['dmarc'];
