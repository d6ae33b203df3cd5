// Every MAILROOM_* setting, declared once: its area, its default as the README states it, what it does, its
// kind, and the Config field it fills. From this table come the `Config` type (infra/config-types.ts), the
// names loadConfig accepts (an unknown MAILROOM_* name stops the start, naming the nearest declared one),
// the reading and checking of every setting (src/config-read.ts, one reader for all), and the settings
// table of docs/settings.md (`npm run settings:readme` rewrites it; test/config-settings.test.ts fails when
// it is stale). It lives below the composition root because Config, which every layer receives, is derived
// from it. One entry per block, grouped by area, so that adding or removing a setting is a change of its
// own lines.
import { isIP } from 'node:net';

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

/** A host that is a loopback address (or `localhost`): nothing beyond this machine can connect. */
function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || (isIP(h) === 4 && h.startsWith('127.'));
}

export const SETTINGS = {
  // HTTP
  MAILROOM_HOST: {
    area: 'HTTP',
    default: '127.0.0.1',
    description: 'address of the HTTP listener (API, tracking, confirmation links, console)',
    kind: { type: 'string', fallback: '127.0.0.1' },
    field: 'host',
  },
  MAILROOM_PORT: {
    area: 'HTTP',
    default: '8080',
    description: 'port of the HTTP listener; `0`: any free port',
    kind: { type: 'int', min: 0, max: 65535, fallback: 8080 },
    field: 'port',
  },
  MAILROOM_PUBLIC_URL: {
    area: 'HTTP',
    default: 'http://localhost:<MAILROOM_PORT> (:8080 when the port is 0)',
    description: 'base of every link mailroom puts in mail (but those on a domain\'s verified custom tracking host), and the console address printed at first start; its host is the CNAME target of custom tracking domains',
    kind: { type: 'url', base: true },
    field: 'publicUrl',
    // Port 0 (any free port) is known only once bound, so the links keep 8080 then.
    derive: (get) => `${get('MAILROOM_HTTP_TLS_CERT') ? 'https' : 'http'}://localhost:${get('MAILROOM_PORT') === 0 ? 8080 : String(get('MAILROOM_PORT'))}`,
  },
  MAILROOM_HTTP_REQUEST_TIMEOUT_SECONDS: {
    area: 'HTTP',
    default: '60',
    description: 'longest a whole HTTP request may take',
    kind: { type: 'seconds', min: 1, max: 3600, fallback: 60 },
    field: 'http.requestTimeoutMs',
  },
  MAILROOM_HTTP_HEADERS_TIMEOUT_SECONDS: {
    area: 'HTTP',
    default: '10',
    description: 'longest the request headers may take (at most the request timeout)',
    kind: { type: 'seconds', min: 1, max: 3600, fallback: 10, atMost: 'MAILROOM_HTTP_REQUEST_TIMEOUT_SECONDS' },
    field: 'http.headersTimeoutMs',
  },
  MAILROOM_HTTP_IDLE_TIMEOUT_SECONDS: {
    area: 'HTTP',
    default: '5',
    description: 'an idle kept-alive connection is closed after this long',
    kind: { type: 'seconds', min: 1, max: 3600, fallback: 5 },
    field: 'http.idleTimeoutMs',
  },
  MAILROOM_TRUSTED_PROXIES: {
    area: 'HTTP',
    default: 'unset',
    description: 'reverse proxies (IP addresses or CIDR ranges, comma-separated, e.g. `127.0.0.1, 10.0.0.0/8`) whose `X-Forwarded-For` (and `-Proto`, `-Host`) is believed: the client address is found by walking the header right to left past these hops, and is what the console\'s sign-in limits and the request log use. Unset: the header is ignored (docs/operations.md, "Behind a reverse proxy")',
    kind: { type: 'ip-list' },
    field: 'trustedProxies',
  },
  MAILROOM_METRICS_TOKEN: {
    area: 'HTTP',
    default: 'unset',
    description: 'when set, `GET /metrics` needs `Authorization: Bearer <token>` (docs/operations.md)',
    kind: { type: 'token' },
    field: 'metricsToken',
  },
  MAILROOM_HTTP_TLS_CERT: {
    area: 'HTTP',
    default: 'unset',
    description: 'PEM certificate (chain) of the HTTP listener, with MAILROOM_HTTP_TLS_KEY (its unencrypted key): `MAILROOM_PORT` then speaks HTTPS only (TLS 1.2 and later), for clients that always build `https://` URLs (Symfony\'s and Laravel\'s Postmark transport, [frameworks.md](frameworks.md)) without a proxy in front; checked at start like the SMTP certificates; `MAILROOM_PUBLIC_URL` then defaults to `https://`',
    kind: { type: 'tls-cert', key: 'MAILROOM_HTTP_TLS_KEY' },
    field: 'httpTls',
  },
  MAILROOM_HTTP_TLS_KEY: {
    area: 'HTTP',
    default: 'unset',
    description: 'the unencrypted PEM key of MAILROOM_HTTP_TLS_CERT; both or neither',
    kind: { type: 'tls-key', cert: 'MAILROOM_HTTP_TLS_CERT' },
  },
  MAILROOM_SHUTDOWN_TIMEOUT_SECONDS: {
    area: 'HTTP',
    default: '20',
    description: 'SIGTERM drain deadline; then claimed jobs are handed back and the process exits 1',
    kind: { type: 'seconds', min: 1, max: 3600, fallback: 20 },
    field: 'shutdownTimeoutMs',
  },
  MAILROOM_LOG_LEVEL: {
    area: 'HTTP',
    default: 'info',
    description: 'pino level (`debug` adds a line per request)',
    kind: { type: 'enum', values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], fallback: 'info' },
    field: 'logLevel',
  },
  // Accounts and keys
  MAILROOM_ACCOUNT_TOKEN: {
    area: 'Accounts and keys',
    default: 'unset',
    description: 'bootstrap account token used when the database is empty (scripted setups, CI); at least 16 characters',
    kind: { type: 'token' },
    field: 'accountToken',
  },
  MAILROOM_SERVER_TOKEN: {
    area: 'Accounts and keys',
    default: 'unset',
    description: 'bootstrap server token used when the database is empty (scripted setups, CI); at least 16 characters',
    kind: { type: 'token' },
    field: 'serverToken',
  },
  MAILROOM_SECRET_KEY: {
    area: 'Accounts and keys',
    default: 'generated',
    description: 'master key (32+ characters) for signed links and for encrypting DKIM private keys and webhook passwords at rest. Unset: a random key is created in `secret.key` beside the SQLite file (or `./data`). Set it when more than one machine runs mailroom.',
    kind: { type: 'secret', minLength: 32 },
    field: 'secretKey',
  },
  // Database
  MAILROOM_DATABASE_URL: {
    area: 'Database',
    default: './data/mailroom.db',
    description: 'a file path (SQLite) or `postgres://...` (PostgreSQL)',
    kind: { type: 'database-url', fallback: './data/mailroom.db' },
    field: 'databaseUrl',
  },
  MAILROOM_DATABASE_POOL_SIZE: {
    area: 'Database',
    default: '10',
    description: 'PostgreSQL connections per process',
    kind: { type: 'int', min: 1, max: 1000, fallback: 10 },
    field: 'databasePoolSize',
  },
  MAILROOM_DATA_REMOVAL_BATCH: {
    area: 'Database',
    default: '500',
    description: 'rows per transaction of a data removal (`POST /data-removals`)',
    kind: { type: 'int', min: 1, max: 100_000, fallback: 500 },
    field: 'dataRemovalBatch',
  },
  // Sending
  MAILROOM_SEND_QUEUE_LIMIT: {
    area: 'Sending',
    default: '20000',
    description: 'Messages of send requests (`/email`, batches, template sends, SMTP submission) waiting for their group commit; beyond it a request is refused with 503 `{ErrorCode: 100}` and `Retry-After: 1` instead of queueing without bound. A request larger than the limit is still taken when nothing waits',
    kind: { type: 'int', min: 1, max: 10_000_000, fallback: 20_000 },
    field: 'sendQueueLimit',
  },
  MAILROOM_BOUNCE_TESTING_DOMAIN: {
    area: 'Sending',
    default: 'unset',
    description: 'a black-hole domain for fake bounces besides the hosted service\'s `bounce-testing.postmarkapp.com` (see "Bounces and spam complaints", "Fake bounces")',
    kind: { type: 'hostname' },
    field: 'bounceTestingDomain',
  },
  MAILROOM_WEBHOOK_ALLOW_PRIVATE: {
    area: 'Sending',
    default: 'false',
    description: 'allow webhook and InboundHookUrl targets, and the links a message\'s link check requests, that are not globally reachable (loopback, private, documentation ranges, this host\'s own addresses)',
    kind: { type: 'bool', fallback: false },
    field: 'webhookAllowPrivate',
  },
  // Delivery
  MAILROOM_SMTP_RELAY: {
    area: 'Delivery',
    default: 'unset',
    description: '`smtp://[user:pass@]host:port` (or `smtps://`): deliver through this relay; unset = direct MX delivery',
    kind: { type: 'smtp-url' },
    field: 'smtpRelay',
  },
  MAILROOM_CAPTURE_DIR: {
    area: 'Delivery',
    default: 'unset',
    description: 'a folder: deliver every message (and system mail) to a local capture that writes each one there as an `.eml` file, instead of to the internet (trying mailroom out, "First send" above). Not together with `MAILROOM_SMTP_RELAY`',
    kind: { type: 'path' },
    field: 'captureDir',
    // Both set would leave one of them silently ignored: which one delivers must be plain.
    check: (dir, get) => (dir !== null && get('MAILROOM_SMTP_RELAY') !== null ? 'set either it or MAILROOM_SMTP_RELAY, not both' : null),
  },
  MAILROOM_EHLO_NAME: {
    area: 'Delivery',
    default: 'host name if fully qualified, else the return-path domain',
    description: 'name mailroom gives in EHLO',
    kind: { type: 'string' },
    field: 'ehloName',
  },
  MAILROOM_IP_POOLS: {
    area: 'Delivery',
    default: 'unset (the OS chooses the source address)',
    description: 'named pools of local source addresses, each with its EHLO name, assigned to servers and streams by `IpPool`: `name=ip[,ip...][@ehlo];...` or JSON. See "Delivery", "IP pools"',
    kind: { type: 'ip-pools' },
    field: 'ipPools',
  },
  MAILROOM_DELIVERY_CONCURRENCY: {
    area: 'Delivery',
    default: '64',
    description: 'deliveries in flight per worker process (from claim to recorded outcome); also the most a killed worker makes others send twice ("Crash safety")',
    kind: { type: 'int', min: 1, max: 10_000, fallback: 64 },
    field: 'deliveryConcurrency',
  },
  MAILROOM_DELIVERY_DOMAIN_CONCURRENCY: {
    area: 'Delivery',
    default: '16',
    description: 'deliveries in flight per destination domain per worker process',
    kind: { type: 'int', min: 1, max: 10_000, fallback: 16 },
    field: 'deliveryDomainConcurrency',
  },
  MAILROOM_DEST_MAX_CONNECTIONS: {
    area: 'Delivery',
    default: '10',
    description: 'SMTP connections at once to one destination (recipient domain) per worker process; fewer while it throttles (see "Delivery")',
    kind: { type: 'int', min: 1, max: 10_000, fallback: 10 },
    field: 'destMaxConnections',
  },
  MAILROOM_DEST_MAX_RATE: {
    area: 'Delivery',
    default: '0 (none)',
    description: 'messages a minute to one destination per worker process; a throttling destination is slowed below it either way',
    kind: { type: 'int', min: 0, max: 1_000_000, fallback: 0 },
    field: 'destMaxRatePerMinute',
  },
  MAILROOM_DELIVERY_MAX_AGE_HOURS: {
    area: 'Delivery',
    default: '72',
    description: 'a recipient still failing transiently after this long is given up as a SoftBounce',
    kind: { type: 'int', min: 1, max: 24 * 30, fallback: 72 },
    field: 'deliveryMaxAgeHours',
  },
  MAILROOM_DELIVERY_LEASE_SECONDS: {
    area: 'Delivery',
    default: '30',
    description: 'lease on a claimed delivery job, renewed every 10 s while it runs; a dead worker\'s jobs return after it',
    kind: { type: 'seconds', min: 1, max: 86_400, fallback: 30 },
    field: 'deliveryLeaseMs',
  },
  MAILROOM_TLS_CA_FILE: {
    area: 'Delivery',
    default: 'unset',
    description: 'PEM CA certificate trusted, besides Node\'s bundled roots, when outbound certificates are verified (relay, MTA-STS enforce; see "Delivery")',
    kind: { type: 'ca-file' },
    field: 'tlsCa',
  },
  // DNS and domains
  MAILROOM_DNS_SERVERS: {
    area: 'DNS and domains',
    default: 'system',
    description: '`ip[:port],...` used for MX lookups and DNS verification',
    kind: { type: 'dns-servers' },
    field: 'dnsServers',
  },
  MAILROOM_RETURN_PATH_DOMAIN: {
    area: 'DNS and domains',
    default: 'bounces.localhost',
    description: 'envelope domain for bounces, and the CNAME target a custom Return-Path must point at',
    kind: { type: 'hostname', fallback: 'bounces.localhost' },
    field: 'returnPathDomain',
  },
  MAILROOM_SPF_INCLUDE: {
    area: 'DNS and domains',
    default: 'spf.<return path domain>',
    description: 'the include SPF verification expects',
    kind: { type: 'hostname' },
    field: 'spfInclude',
    derive: (get) => `spf.${String(get('MAILROOM_RETURN_PATH_DOMAIN'))}`,
  },
  // Inbound SMTP
  MAILROOM_INBOUND_SMTP_HOST: {
    area: 'Inbound SMTP',
    default: '127.0.0.1',
    description: 'address of the SMTP listener for bounces and complaints, and for servers\' inbound mail',
    kind: { type: 'string', fallback: '127.0.0.1' },
    field: 'inboundSmtpHost',
  },
  MAILROOM_INBOUND_SMTP_PORT: {
    area: 'Inbound SMTP',
    default: '2525',
    description: 'port of that listener',
    kind: { type: 'int', min: 0, max: 65535, fallback: 2525 },
    field: 'inboundSmtpPort',
  },
  MAILROOM_INBOUND_DOMAIN: {
    area: 'Inbound SMTP',
    default: 'inbound.<return path domain>',
    description: 'domain of servers\' inbound addresses (`<InboundHash>@` it); point its MX at the listener',
    kind: { type: 'hostname' },
    field: 'inboundDomain',
    derive: (get) => `inbound.${String(get('MAILROOM_RETURN_PATH_DOMAIN'))}`,
  },
  MAILROOM_INBOUND_MAX_MESSAGE_BYTES: {
    area: 'Inbound SMTP',
    default: '10485760 (10 MiB)',
    description: 'largest message the inbound listener takes (65536 to 104857600): advertised as SIZE (RFC 1870), over it `552 5.3.4` naming the size and the limit. See "Inbound processing"',
    kind: { type: 'int', min: 65_536, max: 100 * 1024 * 1024, fallback: 10 * 1024 * 1024 },
    field: 'inboundMaxMessageBytes',
  },
  MAILROOM_INBOUND_SMTP_MAX_CLIENT_CONNECTIONS: {
    area: 'Inbound SMTP',
    default: '10',
    description: 'connections at once from one client address (IPv6: one /64) to the inbound listener, of its 50; more are `421 4.7.0` (docs/operations.md, "SMTP listeners under abuse")',
    kind: { type: 'int', min: 1, max: 100_000, fallback: 10 },
    field: 'inboundSlots.maxPerClient',
  },
  MAILROOM_INBOUND_SMTP_IDLE_SECONDS: {
    area: 'Inbound SMTP',
    default: '120',
    description: 'an inbound connection without progress (an accepted MAIL, RCPT or DATA; NOOP, RSET and HELP do not count) for this long is closed with `421 4.7.0`',
    kind: { type: 'seconds', min: 1, max: 86_400, fallback: 120 },
    field: 'inboundSlots.idleMs',
  },
  MAILROOM_INBOUND_SMTP_SESSION_SECONDS: {
    area: 'Inbound SMTP',
    default: '600',
    description: 'an inbound connection open this long in all is closed with `421 4.7.0`',
    kind: { type: 'seconds', min: 1, max: 86_400, fallback: 600 },
    field: 'inboundSlots.sessionMs',
  },
  MAILROOM_INBOUND_TLS_CERT: {
    area: 'Inbound SMTP',
    default: 'unset',
    description: 'PEM certificate (chain) file for STARTTLS on the inbound SMTP listener; set together with `_KEY`',
    kind: { type: 'tls-cert', key: 'MAILROOM_INBOUND_TLS_KEY' },
    field: 'inboundTls',
  },
  MAILROOM_INBOUND_TLS_KEY: {
    area: 'Inbound SMTP',
    default: 'unset',
    description: 'PEM private key file of that certificate (unencrypted). Both unset: no STARTTLS offered. Read and checked at start (readable, PEM, key matches the certificate)',
    kind: { type: 'tls-key', cert: 'MAILROOM_INBOUND_TLS_CERT' },
  },
  MAILROOM_SPAMD: {
    area: 'Inbound SMTP',
    default: 'unset',
    description: '`host:port` of a SpamAssassin `spamd`; inbound mail gets a spam score and `InboundSpamThreshold` applies, and a message\'s spam check (console, Mailpit `sa-check`) asks it. Unset: no score, nothing is blocked for spam, the spam check answers that it is not configured',
    kind: { type: 'host-port' },
    field: 'spamd',
  },
  // Parser threads
  MAILROOM_PARSE_THREADS: {
    area: 'Parser threads',
    default: '0 (one per CPU)',
    description: 'worker threads that parse and authenticate SMTP mail (inbound: MIME, SPF/DKIM/DMARC, the webhook JSON; submission: MIME and the API\'s validation) and inline templates\' CSS, so the event loop keeps answering HTTP and SMTP while a hostile message is parsed or a large template inlined. Each has a 512 MB heap and a 120 s budget per message; a message that passes either is refused like unparseable MIME (`554 5.6.0` inbound, `550 5.6.0` submission), and the thread is replaced',
    kind: { type: 'int', min: 0, max: 256, fallback: 0 },
    field: 'parseThreads',
  },
  MAILROOM_PARSE_THREAD_TASKS: {
    area: 'Parser threads',
    default: '16',
    description: 'messages one parser thread reads at once, within 32 MB of message bytes (a message\'s SPF, DKIM and DMARC checks wait for DNS answers, and a thread reading one at a time idled through them: bench:inbound 236 msg/s against 487); a thread that fails while it reads several answers each of them `451 4.3.2` rather than blaming one',
    kind: { type: 'int', min: 1, max: 256, fallback: 16 },
    field: 'parseThreadTasks',
  },
  MAILROOM_PARSE_QUEUE: {
    area: 'Parser threads',
    default: '256',
    description: 'messages that may wait for a parser thread; one more is answered `451 4.3.2` at the end of DATA (the sender keeps it and retries), so memory stays bounded',
    kind: { type: 'int', min: 0, max: 100_000, fallback: 256 },
    field: 'parseQueue',
  },
  // DMARC reports
  MAILROOM_DMARC_REPORT_ADDRESS: {
    area: 'DMARC reports',
    default: 'dmarc@<inbound domain>',
    description: 'where DMARC aggregate reports are mailed; each domain\'s `rua` is its signed sub-address `<local>+<domain id>.<tag>@<domain>`. Its domain\'s MX must point at the inbound listener. See "DMARC aggregate reports"',
    kind: { type: 'report-address' },
    field: 'dmarc.report',
    derive: (get) => `dmarc@${String(get('MAILROOM_INBOUND_DOMAIN'))}`,
  },
  MAILROOM_DMARC_RETENTION_DAYS: {
    area: 'DMARC reports',
    default: '180',
    description: 'DMARC reports (taken in, refused and kept apart) are deleted this many days after they arrive (7 to 3650), by the retention run',
    kind: { type: 'int', min: 7, max: 3650, fallback: 180 },
    field: 'dmarc.retentionDays',
  },
  MAILROOM_DMARC_OWN_SOURCES: {
    area: 'DMARC reports',
    default: 'unset',
    description: 'IPs/CIDRs counted as mailroom\'s own sending addresses in DMARC summaries besides the `MAILROOM_IP_POOLS` addresses and this host\'s interfaces: a relay\'s or a NAT\'s public addresses, other hosts of the cluster',
    kind: { type: 'ip-list' },
    field: 'dmarc.ownSources',
  },
  // SMTP submission
  MAILROOM_SUBMISSION_HOST: {
    area: 'SMTP submission',
    default: '127.0.0.1',
    description: 'address of the SMTP submission listener (role `api`). See "SMTP submission"',
    kind: { type: 'string', fallback: '127.0.0.1' },
    field: 'submission.host',
  },
  MAILROOM_SUBMISSION_PORT: {
    area: 'SMTP submission',
    default: '2587',
    description: 'port of the submission listener; `off` turns it off',
    kind: { type: 'port-or-off', fallback: 2587 },
    field: 'submission.port',
  },
  MAILROOM_SUBMISSION_TLS_CERT: {
    area: 'SMTP submission',
    default: 'unset',
    description: 'PEM certificate for STARTTLS on the submission port (checked at start like the inbound one); set together with `_KEY`. Unset: no STARTTLS',
    kind: { type: 'tls-cert', key: 'MAILROOM_SUBMISSION_TLS_KEY' },
    field: 'submission.tls',
  },
  MAILROOM_SUBMISSION_TLS_KEY: {
    area: 'SMTP submission',
    default: 'unset',
    description: 'PEM private key file of that certificate (unencrypted)',
    kind: { type: 'tls-key', cert: 'MAILROOM_SUBMISSION_TLS_CERT' },
  },
  MAILROOM_SUBMISSION_TLS_PORT: {
    area: 'SMTP submission',
    default: 'unset (off)',
    description: 'an implicit-TLS submission port (RFC 8314, usually 465); needs the certificate',
    kind: { type: 'port-or-off', fallback: null },
    field: 'submission.tlsPort',
    check: (port, get) => (port !== null && get('MAILROOM_SUBMISSION_TLS_CERT') === null ? 'needs MAILROOM_SUBMISSION_TLS_CERT and _KEY' : null),
  },
  MAILROOM_SUBMISSION_ALLOW_INSECURE_AUTH: {
    area: 'SMTP submission',
    default: 'false',
    description: 'allow AUTH without TLS from non-loopback clients (loopback is always allowed)',
    kind: { type: 'bool', fallback: false },
    field: 'submission.allowInsecureAuth',
  },
  MAILROOM_SUBMISSION_MAX_CLIENT_CONNECTIONS: {
    area: 'SMTP submission',
    default: '50',
    description: 'submission connections at once from one client address (IPv6: one /64), of 500; more are `421 4.7.0`. Every local application shares 127.0.0.1',
    kind: { type: 'int', min: 1, max: 100_000, fallback: 50 },
    field: 'submission.slots.maxPerClient',
  },
  MAILROOM_SUBMISSION_IDLE_SECONDS: {
    area: 'SMTP submission',
    default: '300',
    description: 'a submission connection without progress (an accepted AUTH, MAIL, RCPT or DATA) for this long is closed with `421 4.7.0`',
    kind: { type: 'seconds', min: 1, max: 86_400, fallback: 300 },
    field: 'submission.slots.idleMs',
  },
  MAILROOM_SUBMISSION_SESSION_SECONDS: {
    area: 'SMTP submission',
    default: '1800',
    description: 'a submission connection open this long in all is closed with `421 4.7.0`',
    kind: { type: 'seconds', min: 1, max: 86_400, fallback: 1800 },
    field: 'submission.slots.sessionMs',
  },
  MAILROOM_SUBMISSION_AUTH_SECONDS: {
    area: 'SMTP submission',
    default: '30',
    description: 'a submission connection not authenticated this long after it opened is closed with `421 4.7.0`',
    kind: { type: 'seconds', min: 1, max: 3600, fallback: 30 },
    field: 'submission.slots.authMs',
  },
  MAILROOM_SUBMISSION_MAX_AUTH_FAILURES: {
    area: 'SMTP submission',
    default: '20',
    description: 'wrong tokens in AUTH from one client address within 15 minutes (counted in the database, across processes) after which its AUTH is refused unchecked (`421 4.7.0`) until they age; 0 turns the limit off. A connection is closed at its third failed AUTH either way',
    kind: { type: 'int', min: 0, max: 100_000, fallback: 20 },
    field: 'submission.maxAuthFailures',
  },
  // Development SMTP
  MAILROOM_DEV_SMTP_PORT: {
    area: 'Development SMTP',
    default: 'unset (off)',
    description: 'a development SMTP port taking mail **without AUTH** into one Sandbox server, as Mailpit\'s SMTP port does (role `api`; `0`: any free port). See "SMTP without credentials, for development"',
    kind: { type: 'port-or-off', fallback: null },
    field: 'devSmtp.port',
    gate: true,
  },
  MAILROOM_DEV_SMTP_SERVER: {
    area: 'Development SMTP',
    default: 'unset',
    description: 'the Sandbox server (its name or ID) that port puts mail into; required with the port. A Live, unknown or ambiguous server stops the start naming this variable',
    kind: { type: 'string', trim: true },
    field: 'devSmtp.server',
    required: 'MAILROOM_DEV_SMTP_PORT is set: name the Sandbox server (its name or ID) that takes the mail',
  },
  MAILROOM_DEV_SMTP_HOST: {
    area: 'Development SMTP',
    default: '127.0.0.1',
    description: 'address of that port; a non-loopback address stops the start unless `MAILROOM_DEV_SMTP_ALLOW_REMOTE=true`',
    kind: { type: 'string', fallback: '127.0.0.1' },
    field: 'devSmtp.host',
    // Anyone who can reach the port can put mail in the server without a token.
    check: (host, get) =>
      get('MAILROOM_DEV_SMTP_PORT') !== null && !isLoopbackHost(String(host)) && !get('MAILROOM_DEV_SMTP_ALLOW_REMOTE')
        ? `${JSON.stringify(host)} is not a loopback address: the listener takes mail without credentials; set MAILROOM_DEV_SMTP_ALLOW_REMOTE=true to listen there anyway`
        : null,
  },
  MAILROOM_DEV_SMTP_ALLOW_REMOTE: {
    area: 'Development SMTP',
    default: 'false',
    description: 'let `MAILROOM_DEV_SMTP_HOST` be a non-loopback address: anyone who reaches it can put mail in the server without a token',
    kind: { type: 'bool', fallback: false },
    field: 'devSmtp.allowRemote',
  },
  // Test inbox (Mailpit's release and webhook)
  MAILROOM_RELEASE_RELAY_HOST: {
    area: 'Test inbox',
    default: 'unset (release refused)',
    description: 'SMTP relay through which Mailpit\'s release (`POST /mailpit/api/v1/message/{ID}/release`, the console\'s Release button) sends a Sandbox message to a real inbox, as Mailpit\'s `MP_SMTP_RELAY_HOST` (docs/test-inbox.md)',
    kind: { type: 'string', trim: true },
    field: 'releaseRelay.host',
    gate: true,
  },
  MAILROOM_RELEASE_RELAY_PORT: {
    area: 'Test inbox',
    default: '587',
    description: 'port of that relay; 465 when MAILROOM_RELEASE_RELAY_TLS is `tls`',
    kind: { type: 'int', min: 1, max: 65535 },
    field: 'releaseRelay.port',
    // Implicit TLS has its own port (RFC 8314 7.3).
    derive: (get) => (get('MAILROOM_RELEASE_RELAY_TLS') === 'tls' ? 465 : 587),
  },
  MAILROOM_RELEASE_RELAY_TLS: {
    area: 'Test inbox',
    default: 'starttls',
    description: '`starttls` (required, certificate verified against the system CAs and `MAILROOM_TLS_CA_FILE`), `tls` (implicit TLS, RFC 8314, verified the same way) or `none` (for a relay on a private network: STARTTLS only when offered, its certificate not checked)',
    kind: { type: 'enum', values: ['starttls', 'tls', 'none'], fallback: 'starttls' },
    field: 'releaseRelay.tls',
  },
  MAILROOM_RELEASE_RELAY_USER: {
    area: 'Test inbox',
    default: 'unset',
    description: 'AUTH user name at the relay (with MAILROOM_RELEASE_RELAY_PASSWORD; both or neither)',
    kind: { type: 'string' },
    field: 'releaseRelay.user',
    check: (user, get) =>
      (user === null) !== (get('MAILROOM_RELEASE_RELAY_PASSWORD') === null) ? 'set both MAILROOM_RELEASE_RELAY_USER and MAILROOM_RELEASE_RELAY_PASSWORD, or neither' : null,
  },
  MAILROOM_RELEASE_RELAY_PASSWORD: {
    area: 'Test inbox',
    default: 'unset',
    description: 'AUTH password at the relay',
    kind: { type: 'string' },
    field: 'releaseRelay.pass',
  },
  MAILROOM_RELEASE_RELAY_ALLOWED_RECIPIENTS: {
    area: 'Test inbox',
    default: 'unset (any recipient)',
    description: 'comma-separated addresses (`qa@example.com`), domains (`example.com`) and subdomain wildcards (`*.example.com`) a release may go to; any other recipient is refused with 400. Mailpit\'s `MP_SMTP_RELAY_ALLOWED_RECIPIENTS` is a regular expression; this is a plain list',
    kind: { type: 'recipient-list' },
    field: 'releaseRelay.allowedRecipients',
  },
  MAILROOM_MAILPIT_WEBHOOK_URL: {
    area: 'Test inbox',
    default: 'unset',
    description: 'each new Sandbox message\'s summary (Mailpit\'s message summary JSON) is POSTed here, as Mailpit\'s `MP_WEBHOOK_URL` does; queued with the message and retried with back-off',
    kind: { type: 'url' },
    field: 'mailpitWebhookUrl',
  },
  MAILROOM_MAILPIT_OPEN_SERVER: {
    area: 'Test inbox',
    default: 'unset (Basic authentication required)',
    description: 'name or ID of a Sandbox server: a Mailpit API request (`/mailpit/...`) without an `Authorization` header is served as that server, as stock Mailpit serves its API without credentials, so a test suite configured for Mailpit changes only the host and port. Requests with credentials still select their own server. A Live, unknown or ambiguous server stops the start',
    kind: { type: 'string', trim: true },
    field: 'mailpitOpenServer',
  },
} as const satisfies Record<`MAILROOM_${string}`, Setting>;

export type SettingName = keyof typeof SETTINGS;

export const SETTING_NAMES: ReadonlySet<string> = new Set(Object.keys(SETTINGS));
